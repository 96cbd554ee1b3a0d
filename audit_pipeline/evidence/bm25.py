"""A small Okapi BM25 over an in-memory list of passages.

The vault index has LanceDB's full-text search; logged contexts (the handful of chunks a RAG
bot retrieved for one answer) are too small and too short-lived to index in a database, and
pulling in a search library for them is not worth a dependency.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from audit_pipeline.text.tokens import terms


class BM25:
    """Okapi BM25 (k1=1.5, b=0.75) with the non-negative "plus one" IDF."""

    def __init__(self, documents: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self._docs = [Counter(terms(document)) for document in documents]
        self._lengths = [sum(doc.values()) for doc in self._docs]
        self._avg_length = (sum(self._lengths) / len(self._lengths)) if self._docs else 0.0
        frequency: Counter[str] = Counter()
        for doc in self._docs:
            frequency.update(doc.keys())
        n = len(self._docs)
        self._idf = {
            term: math.log(1.0 + (n - df + 0.5) / (df + 0.5)) for term, df in frequency.items()
        }

    def scores(self, query: str) -> list[float]:
        """BM25 score of every document for ``query``, in document order."""
        query_terms = set(terms(query))
        out: list[float] = []
        for doc, length in zip(self._docs, self._lengths, strict=True):
            norm = self.k1 * (1.0 - self.b + self.b * length / (self._avg_length or 1.0))
            score = 0.0
            for term in query_terms:
                tf = doc.get(term, 0)
                if tf:
                    score += self._idf[term] * tf * (self.k1 + 1.0) / (tf + norm)
            out.append(score)
        return out
