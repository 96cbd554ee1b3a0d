"""One validation service per process, shared by the HTTP API and the MCP server.

It builds the audit's own extractor and verifier from ``audit.yaml`` (the same factory the
Dagster assets use), so a single validation and a batch audit reach the same verdicts, and it
records every validation in the warehouse as an ``interactive`` audit.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from audit_pipeline.config import AuditConfig
from audit_pipeline.embedding import local_embedder, retrieval_embedder
from audit_pipeline.embedding_cache import cached
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.service.interactive import record_validation
from audit_pipeline.validation.engine import AnswerValidator
from audit_pipeline.verification.configured import build_extractor, build_verifier
from audit_pipeline.warehouse.store import Warehouse

MAX_TEXT = 100_000  # characters of a question, answer or source
MAX_SOURCES = 50


class ServiceInputError(ValueError):
    """The request is not something the engine can validate; the message names the field."""


def check_inputs(question: str, answer: str, sources: Sequence[str] | None) -> None:
    if not question.strip():
        raise ServiceInputError("question: must not be empty")
    for name, text in (("question", question), ("answer", answer)):
        if len(text) > MAX_TEXT:
            raise ServiceInputError(f"{name}: longer than {MAX_TEXT} characters")
    if sources is not None:
        if len(sources) > MAX_SOURCES:
            raise ServiceInputError(f"sources: more than {MAX_SOURCES} sources")
        if any(len(s) > MAX_TEXT for s in sources):
            raise ServiceInputError(f"sources: a source is longer than {MAX_TEXT} characters")


class ValidationService:
    """Validates answers and searches the vault; thread-safe (one validation at a time, as
    the models and the single DuckDB writer are shared)."""

    def __init__(self, config_path: Path, config: AuditConfig) -> None:
        self.config_path = config_path
        self.config = config
        self.warehouse = Warehouse(config.duckdb_path, config.storage.lock_timeout_s)
        self.warehouse.migrate()
        # The same embedders as an audit (defs/resources.py): the offline model for the checks,
        # the configured one (perhaps a provider's) for the index, both behind the cache.
        embedding, cache = config.embedding, config.embedding_cache_path
        self.embedder = cached(
            local_embedder(
                embedding.provider, embedding.model, embedding.device, embedding.batch_size
            ),
            cache,
        )
        key_env = embedding.api_key_env
        retrieval = cached(
            retrieval_embedder(
                embedding.provider,
                embedding.model,
                embedding.device,
                embedding.batch_size,
                api_key=os.environ.get(key_env) if key_env else None,
                api_base=embedding.api_base,
                timeout_s=embedding.timeout_s,
            ),
            cache,
        )
        judge_env = config.detection.judge.api_key_env
        api_key = os.environ.get(judge_env) if judge_env else None
        validation_env = config.validation.judge.api_key_env
        index = VaultIndex(config.lancedb_path, retrieval, config.storage.index_table)
        self.retriever = (
            HybridRetriever(
                index,
                candidates=config.retrieval.candidates,
                rrf_k=config.retrieval.rrf_k,
                collections=config.collection_policy(),
            )
            if index.exists()
            else None
        )
        self.validator = AnswerValidator(
            embedder=self.embedder,
            extractor=build_extractor(
                config.detection, config.assertions.fallback_sentences, api_key
            ),
            verifier=build_verifier(config.detection, self.embedder, api_key),
            settings=config.validation,
            retriever=self.retriever,
            top_k=config.detection.evidence_top_k,
            judge_api_key=os.environ.get(validation_env) if validation_env else None,
            terminology=config.terminology(),
        )
        self._lock = threading.Lock()

    def validate(
        self, question: str, answer: str, sources: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """The validation result (claims, verdicts, provenance, Self-RAG checks), recorded."""
        check_inputs(question, answer, sources)
        if sources is None and self.retriever is None:
            raise ServiceInputError(
                "sources: required while the vault is not indexed (run an audit first)"
            )
        with self._lock:
            result = self.validator.validate(question, answer, sources)
            audit_id = record_validation(self.warehouse, result, self.config.fingerprint())
        return {"audit_id": audit_id, **result.to_dict()}

    def search(self, query: str, k: int = 5) -> list[dict[str, Any]]:
        if not query.strip():
            raise ServiceInputError("query: must not be empty")
        if not 1 <= k <= 50:
            raise ServiceInputError("k: must be between 1 and 50")
        if self.retriever is None:
            raise ServiceInputError("the vault is not indexed yet (run an audit first)")
        with self._lock:
            hits = self.retriever.search(query, k=k)
        return [
            {
                "chunk_id": h.chunk_id,
                "document": h.document,
                "title": h.title,
                "section": h.section,
                "text": h.text,
                "vector_score": h.vector_score,
                "bm25_score": h.bm25_score,
                "fused_score": h.fused_score,
            }
            for h in hits
        ]
