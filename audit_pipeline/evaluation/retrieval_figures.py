"""Retrieval figures of golden queries: precision@k, recall@k, MRR, abstention, latency.

Retrieval returns chunks; the golden set names documents. So, for one query with expected
documents E and the first k chunks it returned (k = ``evaluation.k``), in rank order:

- precision@k = chunks from a document in E / k: the textbook definition, where a slot left
  empty (retrieval returned fewer than k chunks: a lower ``top_k``, hits dropped by a
  ``min_score``) counts as a miss, so a configuration that starves the bot of context scores
  lower, not higher;
- hit precision = chunks from a document in E / chunks returned (0 when none): how clean the
  returned context is, whatever its size; the figure that threshold tuning trades against recall;
- recall@k = share of E that at least one returned chunk comes from;
- reciprocal rank = 1 / rank of the first chunk from E (0 when there is none);
- an **abstention** returns nothing (every hit fell below its collection's ``min_score``): all
  of the above are 0 for it, and the abstention rate counts it.

Figures are means over queries (each query counts once), fractions in 0..1; latency is the
95th percentile of the per-query search time in milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from audit_pipeline.evaluation.golden import GoldenQuery

FIGURES = (
    "precision",
    "hit_precision",
    "recall",
    "mrr",
    "abstention_rate",
    "p95_latency_ms",
)


@dataclass(frozen=True)
class QueryResult:
    """One golden query's retrieval: the documents of its first ``k`` hits, in rank order."""

    query: GoldenQuery
    collection: str
    retrieved: tuple[str, ...]  # document of each returned chunk (at most k)
    retrieved_collections: tuple[str, ...]
    latency_ms: float
    k: int

    @property
    def abstained(self) -> bool:
        return not self.retrieved

    @property
    def relevant(self) -> int:
        expected = set(self.query.expected_doc_ids)
        return sum(doc in expected for doc in self.retrieved)

    @property
    def precision(self) -> float:
        return self.relevant / self.k

    @property
    def hit_precision(self) -> float:
        return self.relevant / len(self.retrieved) if self.retrieved else 0.0

    @property
    def recall(self) -> float:
        expected = set(self.query.expected_doc_ids)
        return len(expected.intersection(self.retrieved)) / len(expected)

    @property
    def reciprocal_rank(self) -> float:
        expected = set(self.query.expected_doc_ids)
        for rank, doc in enumerate(self.retrieved, start=1):
            if doc in expected:
                return 1.0 / rank
        return 0.0

    @property
    def type_precision(self) -> float | None:
        """Share of returned chunks from an ``expected_doc_types`` collection (None: not set)."""
        if not self.query.expected_doc_types:
            return None
        if not self.retrieved_collections:
            return 0.0
        wanted = set(self.query.expected_doc_types)
        return sum(c in wanted for c in self.retrieved_collections) / len(
            self.retrieved_collections
        )


@dataclass(frozen=True)
class Figures:
    queries: int
    precision: float
    hit_precision: float
    recall: float
    mrr: float
    abstention_rate: float
    p95_latency_ms: float
    type_precision: float | None = None

    def to_dict(self) -> dict[str, float | int | None]:
        out: dict[str, float | int | None] = {
            "queries": self.queries,
            "precision": round(self.precision, 4),
            "hit_precision": round(self.hit_precision, 4),
            "recall": round(self.recall, 4),
            "mrr": round(self.mrr, 4),
            "abstention_rate": round(self.abstention_rate, 4),
            "p95_latency_ms": round(self.p95_latency_ms, 1),
        }
        if self.type_precision is not None:
            out["type_precision"] = round(self.type_precision, 4)
        return out


def summarize(results: Sequence[QueryResult]) -> Figures:
    if not results:
        raise ValueError("no query results to summarize")
    typed = [r.type_precision for r in results if r.type_precision is not None]
    return Figures(
        queries=len(results),
        precision=float(np.mean([r.precision for r in results])),
        hit_precision=float(np.mean([r.hit_precision for r in results])),
        recall=float(np.mean([r.recall for r in results])),
        mrr=float(np.mean([r.reciprocal_rank for r in results])),
        abstention_rate=float(np.mean([r.abstained for r in results])),
        p95_latency_ms=float(np.percentile([r.latency_ms for r in results], 95)),
        type_precision=float(np.mean(typed)) if typed else None,
    )
