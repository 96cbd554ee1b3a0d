"""Single validations land in the warehouse as ``interactive`` audits.

Analysts query one warehouse: a validation requested over HTTP or MCP becomes an audit of
target ``interactive`` (suite ``interactive``) with one response, its claims, evidence,
verdicts and Self-RAG row, so ``v_claim_verdicts`` and ``response_validations`` show it beside
the batch audits. One audit per validation keeps every write idempotent and independent.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime

from audit_pipeline.claims.audit_claims import AuditClaim, audit_claim_id
from audit_pipeline.targets.response_record import ResponseRecord
from audit_pipeline.validation.batch import validation_row
from audit_pipeline.validation.engine import ValidationResult
from audit_pipeline.warehouse.audit_tables import (
    AuditRef,
    new_audit_id,
    start_audit,
    write_responses,
)
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline.warehouse.verdict_tables import write_claims, write_evidence, write_verdicts

TARGET = "interactive"


def record_validation(store: Warehouse, result: ValidationResult, config_hash: str) -> str:
    """Write one validation as a finished interactive audit; returns its audit id."""
    started = datetime.now(UTC)
    audit_id = new_audit_id(TARGET, uuid.uuid4().hex, started)
    prompt_hash = hashlib.sha256(result.question.encode()).hexdigest()[:16]
    prompt_id = f"validation-{prompt_hash}"
    ref = AuditRef(audit_id, TARGET, TARGET, prompt_hash)
    start_audit(store, ref, vault_hash=None, config_hash=config_hash, dagster_run_id=None)
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
        finished_at=datetime.now(UTC),
        prompt_hash=prompt_hash,
    )
    write_responses(store, audit_id, [record])
    claims = [
        AuditClaim(audit_claim_id(prompt_id, 0, r.claim), prompt_id, 0, r.claim, "validate")
        for r in result.claims
    ]
    write_claims(store, audit_id, claims)
    write_evidence(
        store,
        audit_id,
        {c.claim_id: r.evidence for c, r in zip(claims, result.claims, strict=True)},
    )
    write_verdicts(store, audit_id, claims, [r.verdict for r in result.claims])
    store.replace(
        "response_validations",
        [validation_row(audit_id, prompt_id, 0, result.checks, result.citations)],
        {"audit_id": audit_id},
    )
    store.execute(
        "UPDATE audits SET status = 'finished', finished_at = ? WHERE audit_id = ?",
        [datetime.now(UTC), audit_id],
    )
    return audit_id
