"""Single validations land in the warehouse as ``interactive`` audits.

Analysts query one warehouse: a validation requested over HTTP or MCP becomes an audit of
target ``interactive`` (suite ``interactive``) with one response, its claims, evidence,
verdicts and Self-RAG row, so ``v_claim_verdicts`` and ``response_validations`` show it beside
the batch audits. One audit per validation keeps every write idempotent and independent.

A write to the warehouse (connection, transaction, checkpoint, a copy of the file as the read
snapshot) costs more than validating a short answer, so validations are written together:
under load the service writes a couple of transactions a second, not one per request, and
publishes the read snapshot when a burst is over (or every ``SNAPSHOT_EVERY_S`` during one)
rather than after every write (``ValidationRecorder``).
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from audit_pipeline.claims.audit_claims import audit_claim_id
from audit_pipeline.records.claims import AuditClaim
from audit_pipeline.records.responses import ResponseRecord
from audit_pipeline.validation.batch import validation_row
from audit_pipeline.validation.engine import ValidationResult
from audit_pipeline.warehouse.audit_tables import new_audit_id, response_row
from audit_pipeline.warehouse.store import Rows, Warehouse
from audit_pipeline.warehouse.table_rows import ClaimRow
from audit_pipeline.warehouse.verdict_tables import (
    evidence_rows,
    judge_usage_columns,
    verdict_rows,
)

TARGET = "interactive"
LOG = logging.getLogger(__name__)
_POLL_S = 0.01  # how often a lingering writer looks whether the validations are done
SNAPSHOT_EVERY_S = 5.0  # the read snapshot lags the warehouse by at most this during a burst

Write = tuple[str, Rows, Mapping[str, Any] | None]
TABLES = ("audits", "responses", "claims", "evidence", "verdicts", "response_validations")


@dataclass(frozen=True)
class ValidationRows:
    """Everything one validation writes: rows per table, all under its own audit id."""

    audit_id: str
    tables: dict[str, list[dict[str, Any]]]


def batch_writes(batch: Sequence[ValidationRows]) -> list[Write]:
    """One write per table for the validations of ``batch`` together."""
    ids = [rows.audit_id for rows in batch]
    return [
        (table, [row for rows in batch for row in rows.tables[table]], {"audit_id": ids})
        for table in TABLES
    ]


def validation_rows(
    result: ValidationResult, config_hash: str, started: datetime
) -> ValidationRows:
    """The rows of one validation as a finished interactive audit."""
    finished = datetime.now(UTC)
    audit_id = new_audit_id(TARGET, uuid.uuid4().hex, started)
    prompt_hash = hashlib.sha256(result.question.encode()).hexdigest()[:16]
    prompt_id = f"validation-{prompt_hash}"
    audit = {
        "audit_id": audit_id,
        "started_at": started,
        "finished_at": finished,
        "status": "finished",
        "target": TARGET,
        "suite": TARGET,
        "suite_hash": prompt_hash,
        "config_hash": config_hash,
    }
    record = ResponseRecord(
        audit_id=audit_id,
        prompt_id=prompt_id,
        turn=0,
        target=TARGET,
        model=None,
        prompt=result.question,
        response=result.answer,
        citations=(),
        context=tuple(s.text for s in result.sources) if result.sources else None,
        latency_ms=None,
        prompt_tokens=None,
        completion_tokens=None,
        cost=None,
        error=None,
        attempts=1,
        from_cache=False,
        started_at=started,
        finished_at=finished,
        prompt_hash=prompt_hash,
    )
    claims = [
        AuditClaim(audit_claim_id(prompt_id, 0, r.claim), prompt_id, 0, r.claim, "validate")
        for r in result.claims
    ]
    verdicts = [r.verdict for r in result.claims]
    evidence = {c.claim_id: r.evidence for c, r in zip(claims, result.claims, strict=True)}
    tables = {
        "audits": [{**audit, **judge_usage_columns(verdicts)}],
        "responses": [response_row(record)],
        "claims": [ClaimRow.of(audit_id, c).column_values() for c in claims],
        "evidence": evidence_rows(audit_id, evidence),
        "verdicts": verdict_rows(audit_id, claims, verdicts),
        "response_validations": [
            validation_row(audit_id, prompt_id, 0, result.checks, result.citations)
        ],
    }
    return ValidationRows(audit_id, tables)


class ValidationRecorder:
    """Writes validations in batches from one writer thread.

    A write holds the interpreter for most of its ~0.1 s, so writing each validation as it
    finished slowed the next validation as much as it cost, and no batch ever formed. The
    writer waits while ``busy()`` (more validations are under way, whose rows can go along),
    at most ``linger_s`` after the oldest waiting validation, then writes everything waiting
    in one transaction. ``submit`` returns a future of the audit id, set once committed.
    """

    def __init__(
        self,
        store: Warehouse,
        config_hash: str,
        busy: Callable[[], bool],
        linger_s: float = 0.5,
        max_batch: int = 100,
    ) -> None:
        self.store = store
        self.config_hash = config_hash
        self.busy = busy
        self.linger_s = linger_s
        self.max_batch = max_batch
        self._pending: list[tuple[float, ValidationRows, Future[str]]] = []
        self._changed = threading.Condition()
        self._writer: threading.Thread | None = None

    def submit(self, result: ValidationResult, started: datetime) -> Future[str]:
        rows = validation_rows(result, self.config_hash, started)
        future: Future[str] = Future()
        future.set_running_or_notify_cancel()  # a caller who gives up cannot cancel a write
        with self._changed:
            self._pending.append((time.monotonic(), rows, future))
            if self._writer is None:
                self._writer = threading.Thread(
                    target=self._write_forever, name="record-validations", daemon=True
                )
                self._writer.start()
            self._changed.notify()
        return future

    def _next_batch(self) -> list[tuple[float, ValidationRows, Future[str]]]:
        with self._changed:
            while not self._pending:
                self._changed.wait()
            while len(self._pending) < self.max_batch and self.busy():
                left = self._pending[0][0] + self.linger_s - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(min(left, _POLL_S))
            batch, self._pending = self._pending[: self.max_batch], self._pending[self.max_batch :]
            return batch

    def _write_forever(self) -> None:
        published = time.monotonic()
        while True:
            batch = self._next_batch()
            try:
                self.store.replace_many(batch_writes([rows for _, rows, _ in batch]), publish=False)
            except Exception as error:  # every request of the batch hears of the failure
                for _, _, future in batch:
                    future.set_exception(error)
                continue
            with self._changed:
                more = bool(self._pending)
            if not more or time.monotonic() - published > SNAPSHOT_EVERY_S:
                try:  # the rows are committed: a stale read copy is no reason to fail them
                    self.store.publish_snapshot()
                    published = time.monotonic()
                except Exception as error:  # the writer thread must outlive it
                    LOG.warning("validations recorded; read snapshot not refreshed: %s", error)
            for _, rows, future in batch:
                future.set_result(rows.audit_id)
