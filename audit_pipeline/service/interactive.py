"""Single validations land in the warehouse as ``interactive`` audits.

Analysts query one warehouse: a validation requested over HTTP or MCP becomes an audit of
target ``interactive`` (suite ``interactive``) with one response, its claims, evidence,
verdicts and Self-RAG row, so ``v_claim_verdicts`` and ``response_validations`` show it beside
the batch audits. One audit per validation keeps every write idempotent and independent.

Every write to the warehouse publishes a fresh read snapshot (a copy of the file), which costs
far more than the validation's own rows, so a validation is written in one transaction, and
validations that finish while another is being written go together in the next one (a group
commit): under load the service writes a few transactions a second, not one per request.
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from audit_pipeline.claims.audit_claims import AuditClaim, audit_claim_id
from audit_pipeline.targets.response_record import ResponseRecord
from audit_pipeline.validation.batch import validation_row
from audit_pipeline.validation.engine import ValidationResult
from audit_pipeline.warehouse.audit_tables import new_audit_id, response_row
from audit_pipeline.warehouse.store import Rows, Warehouse
from audit_pipeline.warehouse.table_rows import ClaimRow
from audit_pipeline.warehouse.verdict_tables import (
    evidence_rows,
    judge_usage_statement,
    verdict_rows,
)

TARGET = "interactive"

Write = tuple[str, Rows, Mapping[str, Any] | None]
Statement = tuple[str, Sequence[Any]]


@dataclass(frozen=True)
class ValidationRows:
    """Everything one validation writes, keyed by its own audit id."""

    audit_id: str
    writes: list[Write]
    statements: list[Statement]


def validation_rows(
    result: ValidationResult, config_hash: str, started: datetime | None = None
) -> ValidationRows:
    """The rows of one validation as a finished interactive audit."""
    started = started or datetime.now(UTC)
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
    key = {"audit_id": audit_id}
    writes: list[Write] = [
        ("audits", [audit], key),
        ("responses", [response_row(record)], key),
        ("claims", [ClaimRow.of(audit_id, c).column_values() for c in claims], key),
        ("evidence", evidence_rows(audit_id, evidence), key),
        ("verdicts", verdict_rows(audit_id, claims, verdicts), key),
        (
            "response_validations",
            [validation_row(audit_id, prompt_id, 0, result.checks, result.citations)],
            key,
        ),
    ]
    return ValidationRows(audit_id, writes, [judge_usage_statement(audit_id, verdicts)])


@dataclass
class _Pending:
    rows: ValidationRows
    done: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None


class ValidationRecorder:
    """Writes validations from many threads, those waiting together in one transaction."""

    def __init__(self, store: Warehouse, config_hash: str) -> None:
        self.store = store
        self.config_hash = config_hash
        self._pending: list[_Pending] = []
        self._pending_lock = threading.Lock()
        self._writing = threading.Lock()

    def record(self, result: ValidationResult, started: datetime) -> str:
        """Write ``result`` (returns once it is committed, with its audit id)."""
        mine = _Pending(validation_rows(result, self.config_hash, started))
        with self._pending_lock:
            self._pending.append(mine)
        with self._writing:
            if not mine.done.is_set():  # no writer before took it along: write what waits
                with self._pending_lock:
                    batch, self._pending = self._pending, []
                self._write(batch)
        if mine.error is not None:
            raise mine.error
        return mine.rows.audit_id

    def _write(self, batch: Sequence[_Pending]) -> None:
        try:
            self.store.replace_many(
                [write for item in batch for write in item.rows.writes],
                [statement for item in batch for statement in item.rows.statements],
            )
        except BaseException as error:  # every request of the batch hears of the failure
            for item in batch:
                item.error = error
        finally:
            for item in batch:
                item.done.set()
