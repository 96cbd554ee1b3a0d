"""Scoring (evidence, claim) pairs with a model: length-sorted batches, memoised results.

Shared by the packaged entailment model and the readers loaded from a folder, which differ only
in how one batch is scored. The same claim is often checked against the same evidence again (a
re-verification after a vault change that did not touch it, a repeated answer), so scores are
kept in a bounded LRU keyed by the exact texts; pairs of similar length share a batch, so little
of each batch is padding.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

Pair = tuple[str, str]
# Scores one batch of pairs: (entailed, contradicted) per pair, in order.
BatchScorer = Callable[[Sequence[Pair]], list[tuple[float, float]]]


class PairScores:
    """Memoised, batched scores of (evidence, claim) pairs; an empty evidence scores (0, 0)
    without reaching the model. Thread-safe: the model is read-only, the cache is locked."""

    def __init__(self, score_batch: BatchScorer, batch_size: int, cache_size: int = 50_000) -> None:
        self._score_batch = score_batch
        self.batch_size = batch_size
        self._cache_size = cache_size
        self._cache: OrderedDict[Pair, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def score(self, pairs: Sequence[Pair]) -> tuple[np.ndarray, np.ndarray]:
        """(entailed, contradicted) arrays, one value per pair."""
        results: list[tuple[float, float] | None] = [None] * len(pairs)
        todo: list[int] = []
        with self._lock:
            for index, pair in enumerate(pairs):
                if not pair[0].strip():
                    results[index] = (0.0, 0.0)
                elif pair in self._cache:
                    self._cache.move_to_end(pair)
                    results[index] = self._cache[pair]
                else:
                    todo.append(index)
        todo.sort(key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start : start + self.batch_size]
            scored = self._score_batch([pairs[i] for i in batch])
            with self._lock:
                for index, value in zip(batch, scored, strict=True):
                    results[index] = value
                    self._cache[pairs[index]] = value
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        done = [r if r is not None else (0.0, 0.0) for r in results]
        return (
            np.array([r[0] for r in done], dtype=np.float64),
            np.array([r[1] for r in done], dtype=np.float64),
        )
