"""One validation service per process, shared by the HTTP API and the MCP server.

It builds the audit's own extractor and verifier from ``audit.yaml`` (the same factory the
Dagster assets use), so a single validation and a batch audit reach the same verdicts, with the
audit's limits (``detection.max_claims_per_answer``), and it records every validation in the
warehouse as an ``interactive`` audit. Requests arrive from several workers (``pool.py``): the
model work takes turns (the models and their tokenizers are shared, and a fast tokenizer is not
safe to call from two threads at once), and the time budget binds it: a request whose deadline
passes while it waits for its turn never starts, and one that runs past it is stopped where it
is (``deadline_guard``), so a burst of huge answers cannot hold the models for minutes after
every caller was told 504; the recording is a writer thread's, which writes the
validations of a burst together (``ValidationRecorder``).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from audit_pipeline.config import AuditConfig
from audit_pipeline.embedding import local_embedder, retrieval_embedder
from audit_pipeline.embedding_cache import cached
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.service.deadline_guard import DeadlineGuard
from audit_pipeline.service.errors import FieldProblem, InvalidFields, NotIndexed, TimedOut
from audit_pipeline.service.interactive import ValidationRecorder
from audit_pipeline.validation.engine import AnswerValidator, TimeBudgetExceeded, ValidationResult
from audit_pipeline.verification.configured import build_extractor, build_verifier
from audit_pipeline.warehouse.store import Warehouse


class ValidationService:
    """Validates answers and searches the vault; thread-safe (the model work of one request
    at a time; recordings overlap it and are written together)."""

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
            verifier=build_verifier(
                config.detection, self.embedder, api_key, config.reader_settings
            ),
            settings=config.validation,
            retriever=self.retriever,
            top_k=config.detection.evidence_top_k,
            judge_api_key=os.environ.get(validation_env) if validation_env else None,
            terminology=config.terminology(),
            max_claims=config.detection.max_claims_per_answer,
        )
        self._models = threading.Lock()
        self._counting = threading.Lock()
        self._under_way = 0  # validations waiting for or using the models
        self.recorder = ValidationRecorder(
            self.warehouse, config.fingerprint(), busy=lambda: self._under_way > 0
        )

    def validate(
        self,
        question: str,
        answer: str,
        sources: Sequence[str] | None = None,
        deadline: float | None = None,
    ) -> tuple[ValidationResult, Future[str]]:
        """The validation result (claims, verdicts, provenance, Self-RAG checks) and the future
        of its audit id, set once it is recorded.

        The request was checked already (``requests.check_validation``); ``deadline`` is a
        ``time.monotonic()`` value: past it, ``TimedOut`` and nothing is recorded.
        """
        if sources is None and self.retriever is None:
            raise InvalidFields(
                [
                    FieldProblem(
                        ("sources",), "required while the vault is not indexed (run an audit)"
                    )
                ]
            )
        started = datetime.now(UTC)
        with self._counting:
            self._under_way += 1
        try:
            # Validations take turns on the models; one that waited out its budget for its turn
            # gives up without starting (its caller has had its 504).
            wait = -1.0 if deadline is None else max(0.0, deadline - time.monotonic())
            if not self._models.acquire(timeout=wait):
                raise TimeBudgetExceeded("the wait for the models (validations take turns)")
            try:
                with DeadlineGuard(deadline):  # the work ends at the deadline, not only the wait
                    result = self.validator.validate(question, answer, sources, deadline)
            finally:
                self._models.release()
        except TimeBudgetExceeded as error:
            raise TimedOut(f"timed out: {error} (service.time_budget_s)") from None
        finally:
            with self._counting:
                self._under_way -= 1
        if deadline is not None and time.monotonic() > deadline:
            raise TimedOut("timed out: the time budget ran out before the result was recorded")
        return result, self.recorder.submit(result, started)

    def search(self, query: str, k: int = 5) -> list[dict[str, Any]]:
        """The ``k`` vault chunks that best match ``query`` (checked by the caller)."""
        if self.retriever is None:
            raise NotIndexed("the vault is not indexed yet (run an audit first)")
        with self._models:
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
