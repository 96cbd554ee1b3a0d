"""Writing what the input stages produce (the vault scan and chunks, a suite version, a retrieval
evaluation) into their tables.

The warehouse stores rows and knows no stage; these functions turn a stage's records into the
rows of its tables, so they live with the rest of the reading and writing an audit does.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from audit_pipeline.evaluation.golden_run import RetrievalEvalReport
from audit_pipeline.evaluation.retrieval_figures import Figures
from audit_pipeline.suites.prompt_suite import PromptSuite
from audit_pipeline.vault.chunking import Chunk
from audit_pipeline.vault.documents import VaultScan
from audit_pipeline.warehouse.store import Warehouse


def write_vault_documents(warehouse: Warehouse, scan: VaultScan) -> int:
    """Replace the document table (and skipped-file log) with the current vault state."""
    now = datetime.now(UTC)
    documents = [
        {
            "doc_id": doc.doc_id,
            "title": doc.title,
            "content_hash": doc.content_hash,
            "size_bytes": doc.size_bytes,
            "modified_at": doc.modified_at,
            "vault_hash": scan.state_hash,
            "indexed_at": now,
            "source_format": doc.source_format,
            "text": doc.text,
            "page_starts": list(doc.page_starts) or None,
            "dropped_share": doc.dropped_share,
        }
        for doc in scan.documents
    ]
    skipped = [
        {"path": s.path, "reason": s.reason, "vault_hash": scan.state_hash, "seen_at": now}
        for s in scan.skipped
    ]
    return warehouse.replace_many(
        [("vault_documents", documents, None), ("vault_skipped_files", skipped, None)]
    )


def write_vault_chunks(warehouse: Warehouse, chunks: Sequence[Chunk]) -> int:
    rows = [
        {
            "chunk_id": chunk.chunk_id,
            "doc_id": chunk.doc_id,
            "section": chunk.section,
            "chunk_index": chunk.chunk_index,
            "start_char": chunk.start,
            "end_char": chunk.end,
            "word_count": chunk.word_count,
            "text": chunk.text,
            "doc_hash": chunk.doc_hash,
            "first_page": chunk.first_page,
            "last_page": chunk.last_page,
        }
        for chunk in chunks
    ]
    return warehouse.replace("vault_chunks", rows)


def write_suite_prompts(warehouse: Warehouse, suite_name: str, suite: PromptSuite) -> int:
    """Store one version of a suite (keyed by its content hash) with one row per turn."""
    loaded_at = datetime.now(UTC)
    rows = [
        {
            "suite": suite_name,
            "suite_hash": suite.content_hash,
            "prompt_id": prompt.id,
            "prompt_hash": prompt.prompt_hash,
            "category": prompt.category,
            "turn": number,
            "prompt": turn.prompt,
            "expected_behavior": turn.expected_behavior,
            "required_signals": list(turn.required_signals),
            "must_not_appear": list(turn.must_not_appear),
            "must_not_assert": list(turn.must_not_assert),
            "pinned_response": turn.pinned_response,
            "pinned_tolerance": turn.pinned_tolerance if turn.pinned_response else None,
            "required_citation_source": turn.required_citation_source,
            "citation_must_contain": list(turn.citation_must_contain),
            "no_agreement": turn.no_agreement,
            "expected_doc_ids": list(prompt.expected_doc_ids),
            "notes": prompt.notes,
            "source_path": suite.source or "",
            "loaded_at": loaded_at,
        }
        for prompt in suite.prompts
        for number, turn in enumerate(prompt.turns)
    ]
    return warehouse.replace(
        "suite_prompts", rows, {"suite": suite_name, "suite_hash": suite.content_hash}
    )


def write_retrieval_eval(
    warehouse: Warehouse, eval_id: str, report: RetrievalEvalReport, dagster_run_id: str | None
) -> None:
    """Record one evaluation (both tables, one transaction)."""
    common = {
        "eval_id": eval_id,
        "evaluated_at": datetime.now(UTC),
        "config_hash": report.config_hash,
        "golden_hash": report.golden_hash,
        "vault_hash": report.vault_hash,
        "k": report.k,
        "top_k": report.top_k,
        "dagster_run_id": dagster_run_id,
    }
    scopes: list[tuple[str, str | None, Figures]] = [("overall", None, report.overall)]
    scopes += [("collection", name, f) for name, f in report.per_collection.items()]
    rows = [
        {
            **common,
            "scope": scope,
            "collection": name,
            "queries": figures.queries,
            "precision_at_k": figures.precision,
            "hit_precision": figures.hit_precision,
            "recall_at_k": figures.recall,
            "mrr": figures.mrr,
            "abstention_rate": figures.abstention_rate,
            "p95_latency_ms": figures.p95_latency_ms,
        }
        for scope, name, figures in scopes
    ]
    queries = [
        {
            "eval_id": eval_id,
            "query_index": index,
            "query": r.query.query,
            "source": r.query.source,
            "collection": r.collection,
            "expected_doc_ids": list(r.query.expected_doc_ids),
            "retrieved_doc_ids": list(r.retrieved),
            "precision_at_k": r.precision,
            "recall_at_k": r.recall,
            "reciprocal_rank": r.reciprocal_rank,
            "latency_ms": r.latency_ms,
        }
        for index, r in enumerate(report.results)
    ]
    where = {"eval_id": eval_id}
    warehouse.replace_many(
        [("retrieval_evals", rows, where), ("retrieval_eval_queries", queries, where)]
    )
