"""Run the golden set through the retriever the bot and the evidence stage use.

The retriever is searched exactly as an audit searches it (hybrid search, per-collection
thresholds, ``retrieval.top_k`` hits), one query at a time so each query's latency is its own;
the first ``evaluation.k`` hits are scored (``metrics.py``).
One untimed query first loads the embedding model, so p95 measures searches, not start-up.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from audit_pipeline.evaluation.golden import GoldenQuery
from audit_pipeline.evaluation.retrieval_figures import Figures, QueryResult, summarize
from audit_pipeline.index.collections import CollectionPolicy
from audit_pipeline.index.retrieval import Retriever


@dataclass(frozen=True)
class RetrievalEvalReport:
    config_hash: str
    golden_hash: str
    top_k: int
    k: int
    overall: Figures
    per_collection: dict[str, Figures]
    results: tuple[QueryResult, ...] = field(repr=False)
    vault_hash: str | None = None

    @property
    def queries(self) -> int:
        return len(self.results)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` document; fractions in 0..1."""
        return {
            "config_hash": self.config_hash,
            "golden_hash": self.golden_hash,
            "vault_hash": self.vault_hash,
            "top_k": self.top_k,
            "k": self.k,
            "queries": self.queries,
            "overall": self.overall.to_dict(),
            "per_collection": {name: f.to_dict() for name, f in self.per_collection.items()},
            "misses": [
                {
                    "query": r.query.query,
                    "source": r.query.source,
                    "expected": list(r.query.expected_doc_ids),
                    "retrieved": list(dict.fromkeys(r.retrieved)),
                }
                for r in self.results
                if r.recall < 1.0
            ],
        }


def evaluate_retrieval(
    retriever: Retriever,
    queries: Sequence[GoldenQuery],
    policy: CollectionPolicy,
    top_k: int,
    k: int,
    *,
    config_hash: str,
    golden_hash: str,
    vault_hash: str | None = None,
) -> RetrievalEvalReport:
    if not queries:
        raise ValueError("the golden set has no queries")
    retriever.search(queries[0].query, k=top_k)  # warm-up: model load and first index open
    results = []
    for query in queries:
        started = time.perf_counter()
        hits = retriever.search(query.query, k=top_k)
        elapsed = (time.perf_counter() - started) * 1000
        documents = tuple(hit.document for hit in hits[:k])
        results.append(
            QueryResult(
                query=query,
                collection=query.collection or policy.collection_of(query.expected_doc_ids[0]),
                retrieved=documents,
                retrieved_collections=tuple(policy.collection_of(doc) for doc in documents),
                latency_ms=elapsed,
                k=k,
            )
        )
    groups: dict[str, list[QueryResult]] = {}
    for result in results:
        groups.setdefault(result.collection, []).append(result)
    order = policy.ordered(groups)
    return RetrievalEvalReport(
        config_hash=config_hash,
        golden_hash=golden_hash,
        top_k=top_k,
        k=k,
        overall=summarize(results),
        per_collection={name: summarize(groups[name]) for name in order},
        results=tuple(results),
        vault_hash=vault_hash,
    )
