"""A switch of embedding model re-embeds the vault, into a vector column of the new model's
size: the shipped MiniLM index (384-d) moved to a provider's model served on 127.0.0.1 (48-d)
through litellm, and back; real LanceDB, real model, real HTTP."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from audit_pipeline.embedding import LiteLLMEmbedder, SentenceTransformerEmbedder
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.vault.chunking import Chunk, chunk_documents
from audit_pipeline.vault.documents import scan_vault
from audit_pipeline_tests.embeddings_server import EmbeddingsServer
from audit_pipeline_tests.helpers import SAMPLE_VAULT

MODEL = "openai/hash-embed"
KEY = "sk-test-index"  # the OpenAI client sends none without one, even to a local server


@pytest.fixture(scope="module")
def chunks() -> list[Chunk]:
    return chunk_documents(scan_vault(SAMPLE_VAULT).documents)


def _stored(index: VaultIndex) -> tuple[int, set[str]]:
    """The vector column's size and the model names the rows carry."""
    table = index.table()
    models = table.search().select(["embedding_model"]).limit(None).to_arrow()
    return table.schema.field("vector").type.list_size, set(models.column(0).to_pylist())


def test_a_provider_model_replaces_the_index_in_its_own_dimension(
    tmp_path: Path,
    sample_index_dir: Path,
    chunks: list[Chunk],
    embeddings_server: EmbeddingsServer,
    embedder: SentenceTransformerEmbedder,
) -> None:
    path = tmp_path / "vault.lance"
    shutil.copytree(sample_index_dir, path)
    assert _stored(VaultIndex(path, embedder)) == (384, {"all-MiniLM-L6-v2"})

    remote = LiteLLMEmbedder(MODEL, KEY, embeddings_server.api_base, batch_size=32)
    index = VaultIndex(path, remote)
    report = index.sync(chunks)
    assert (report.embedded, report.reused) == (len(chunks), 0)
    assert _stored(index) == (48, {MODEL})
    assert index.count() == len(chunks)
    assert sum(map(len, embeddings_server.inputs())) == len(chunks)  # no probe: the replies said 48

    requests = embeddings_server.count
    again = index.sync(chunks)
    assert (again.embedded, again.table_version) == (0, report.table_version)
    assert embeddings_server.count == requests  # an unchanged vault costs no provider call

    # Searches embed the query with the same provider model, and the vector side answers.
    hits = HybridRetriever(index).vector_search("How often are encryption keys rotated?", k=3)
    assert len(hits) == 3 and all(h.vector_score is not None for h in hits)
    assert embeddings_server.inputs()[-1] == ["How often are encryption keys rotated?"]

    # Back to the shipped model, with most of the vault gone meanwhile (a smaller sync).
    back = VaultIndex(path, embedder).sync(chunks[:12])
    assert (back.embedded, back.deleted) == (12, len(chunks) - 12)
    assert _stored(index) == (384, {"all-MiniLM-L6-v2"}) and index.count() == 12


def test_new_vectors_of_another_size_under_the_same_name_reembed_everything(
    tmp_path: Path, chunks: list[Chunk], embeddings_server: EmbeddingsServer
) -> None:
    index = VaultIndex(
        tmp_path / "vault.lance", LiteLLMEmbedder(MODEL, KEY, embeddings_server.api_base)
    )
    index.sync(chunks[:-1])
    # The served model changed behind the same name (a model folder replaced in place): the
    # one new chunk comes back 64-d, so no stored 48-d vector can stay.
    embeddings_server.dimension = 64
    index = VaultIndex(
        tmp_path / "vault.lance", LiteLLMEmbedder(MODEL, KEY, embeddings_server.api_base)
    )
    report = index.sync(chunks)
    assert (report.embedded, report.reused) == (len(chunks), 0)
    assert _stored(index) == (64, {MODEL})
    assert index.count() == len(chunks)
