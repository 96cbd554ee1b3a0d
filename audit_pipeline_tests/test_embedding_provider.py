"""Embeddings from a provider through litellm, against a real OpenAI-compatible server on
127.0.0.1: the dimension is learnt from the model, replies are put back in order and
normalised, the key goes to the server and nowhere else; and the ``embedding:`` settings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from audit_pipeline.config import ConfigError, load_config
from audit_pipeline.embedding import (
    EmbeddingServiceError,
    LiteLLMEmbedder,
    SentenceTransformerEmbedder,
    local_embedder,
    retrieval_embedder,
)
from audit_pipeline_tests.embeddings_server import (
    EmbeddingsServer,
    hashed_vector,
)

KEY = "sk-test-0123456789abcdef"
MODEL = "openai/hash-embed"


def _embedder(embeddings_server: EmbeddingsServer, **kwargs: object) -> LiteLLMEmbedder:
    return LiteLLMEmbedder(MODEL, api_key=KEY, api_base=embeddings_server.api_base, **kwargs)  # type: ignore[arg-type]


def test_dimension_is_learnt_from_the_model_not_assumed(
    embeddings_server: EmbeddingsServer,
) -> None:
    embedder = _embedder(embeddings_server)
    assert embedder.name == MODEL
    assert embedder.dimension == 48  # one short probe call
    assert embeddings_server.count == 1
    assert embedder.dimension == 48 and embeddings_server.count == 1  # remembered
    assert embedder.embed([]).shape == (0, 48)


def test_batches_come_back_in_order_normalised(embeddings_server: EmbeddingsServer) -> None:
    texts = [f"text number {i} about key rotation" for i in range(7)]
    vectors = _embedder(embeddings_server, batch_size=3).embed(texts)
    assert vectors.shape == (7, 48) and vectors.dtype == np.float32
    assert embeddings_server.inputs() == [texts[0:3], texts[3:6], texts[6:7]]
    expected = np.asarray([hashed_vector(t, 48) for t in texts], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    # The server lists each batch's vectors backwards: their ``index`` puts them back.
    assert np.allclose(vectors, expected, atol=1e-6)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert embeddings_server.server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert embeddings_server.server.requests[0].json()["model"] == "hash-embed"


def test_a_failure_names_the_model_and_never_the_key(embeddings_server: EmbeddingsServer) -> None:
    embeddings_server.mode = "unauthorized"  # the server quotes the key back, as some providers do
    embedder = _embedder(embeddings_server)
    with pytest.raises(EmbeddingServiceError) as failure:
        embedder.embed(["hello"])
    message = str(failure.value)
    assert MODEL in message and "Incorrect API key provided: [REDACTED]" in message
    assert KEY not in message and failure.value.__cause__ is None
    assert KEY not in repr(embedder)


def test_a_model_that_changes_dimension_mid_run_is_refused(
    embeddings_server: EmbeddingsServer,
) -> None:
    embedder = _embedder(embeddings_server)
    embedder.embed(["first"])
    embeddings_server.dimension = 64
    with pytest.raises(EmbeddingServiceError, match="64-dimensional vectors after 48"):
        embedder.embed(["second"])


def test_retrieval_uses_the_provider_and_the_offline_checks_keep_the_shipped_model() -> None:
    remote = retrieval_embedder("litellm", MODEL, api_key=KEY, api_base="http://127.0.0.1:9/v1")
    assert isinstance(remote, LiteLLMEmbedder) and remote.name == MODEL
    local = local_embedder("litellm", MODEL)
    assert isinstance(local, SentenceTransformerEmbedder)
    assert local.name == "all-MiniLM-L6-v2"
    offline = retrieval_embedder("sentence_transformers", "all-MiniLM-L6-v2")
    assert isinstance(offline, SentenceTransformerEmbedder)
    assert local_embedder("sentence_transformers", "/models/mine").name == "/models/mine"


def _config(tmp_path: Path, embedding: dict[str, object]) -> Path:
    path = tmp_path / "audit.yaml"
    path.write_text(yaml.safe_dump({"embedding": embedding}))
    return path


def test_provider_settings(tmp_path: Path) -> None:
    config = load_config(
        _config(
            tmp_path,
            {
                "provider": "litellm",
                "model": "openai/text-embedding-3-small",
                "api_key_env": "EMBEDDING_KEY",
                "api_base": "http://127.0.0.1:8080/v1",
                "timeout_s": 5,
            },
        )
    )
    assert config.embedding.provider == "litellm"
    assert config.embedding.api_key_env == "EMBEDDING_KEY"
    assert load_config(_config(tmp_path, {})).embedding.provider == "sentence_transformers"


@pytest.mark.parametrize(
    ("embedding", "message"),
    [
        ({"provider": "litellm"}, "needs embedding.model"),
        ({"provider": "openai", "model": "x"}, "provider"),
        ({"api_base": "http://127.0.0.1:8080/v1"}, "embedding.api_base is only for provider"),
        ({"provider": "litellm", "model": "openai/x", "api_key_env": "NOT A NAME"}, "api_key_env"),
    ],
)
def test_provider_settings_are_checked(
    tmp_path: Path, embedding: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(_config(tmp_path, embedding))
