"""An embedder wrapper that remembers vectors it has computed.

The same texts are embedded again and again during an audit: a claim is embedded to rank its
evidence and again to align with evidence sentences; the passages of one source come back for
every answer about it. Embedding is by far the slowest step on a CPU, so one bounded memo per
audit run pays for itself many times over. It is per instance, never global.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from audit_pipeline.embedding import Embedder


class MemoEmbedder:
    """Wraps an :class:`Embedder`; keeps the most recent ``capacity`` vectors (LRU)."""

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
