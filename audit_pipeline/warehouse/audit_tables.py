"""Rows for the audit tables: audits, suite prompts and target responses.

Each audit stage writes its rows with ``Warehouse.replace`` keyed by ``audit_id``, so running a
stage again for the same audit replaces exactly its own rows, and loads them back by the same
key: the warehouse, not an in-memory object, is how later stages (and a ``reverify`` run days
later) find an audit's responses.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from audit_pipeline.records.audits import AuditRef
from audit_pipeline.records.responses import Citation, ResponseRecord
from audit_pipeline.warehouse.store import Warehouse, or_none


def new_audit_id(target: str, run_id: str, now: datetime | None = None) -> str:
    """Sortable by time, readable, and unique per run: ``20261123T080000Z-vault_bot-1a2b3c4d``."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{target}-{run_id[:8]}"


def start_audit(
    warehouse: Warehouse,
    ref: AuditRef,
    *,
    vault_hash: str | None,
    config_hash: str,
    dagster_run_id: str | None,
) -> None:
    """Record a new audit, or reopen an unfinished one that is being resumed.

    Resuming keeps the original ``started_at`` and clears the outcome (and the failure of a
    failed audit) until the audit finishes again. ``scope`` says whether the whole suite was
    asked (``AuditRef.scope``).
    """
    warehouse.execute(
        """
        INSERT INTO audits (audit_id, started_at, status, target, suite, suite_hash,
                            vault_hash, config_hash, dagster_run_id, scope)
        VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (audit_id) DO UPDATE SET
            status = 'running', finished_at = NULL, decision = NULL, risk = NULL,
            failed_step = NULL, failure = NULL,
            suite = excluded.suite, suite_hash = excluded.suite_hash,
            vault_hash = excluded.vault_hash, config_hash = excluded.config_hash,
            dagster_run_id = excluded.dagster_run_id
        """,
        [
            ref.audit_id,
            datetime.now(UTC),
            ref.target,
            ref.suite,
            ref.suite_hash,
            vault_hash,
            config_hash,
            dagster_run_id,
            ref.scope,
        ],
    )


def fail_audits(
    warehouse: Warehouse, dagster_run_ids: Sequence[str], step: str, reason: str
) -> list[str]:
    """Mark the audits the runs ``dagster_run_ids`` left running as ``failed``, with the step
    that failed (or was running when the run was stopped) and why; returns their ids.

    Without this an audit whose step failed stayed ``running`` for ever, its decision empty,
    indistinguishable from one still in progress. Its rows stay: ``--resume`` continues it.
    """
    if not dagster_run_ids or not warehouse.path.exists():
        return []
    marks = ", ".join("?" * len(dagster_run_ids))
    where = f"dagster_run_id IN ({marks}) AND status = 'running'"
    failed = warehouse.query(f"SELECT audit_id FROM audits WHERE {where}", list(dagster_run_ids))
    if failed.empty:
        return []
    warehouse.execute(
        f"UPDATE audits SET status = 'failed', failed_step = ?, failure = ?, finished_at = ?"
        f" WHERE {where}",
        [step, reason[:2000], datetime.now(UTC), *dagster_run_ids],
    )
    return list(failed["audit_id"])


def unfinished_audit(warehouse: Warehouse, target: str) -> str | None:
    """The latest audit of ``target`` that never finished (failed, killed, crashed), if any."""
    if not warehouse.path.exists():
        return None
    return warehouse.scalar(
        "SELECT audit_id FROM audits WHERE target = ? AND status IN ('running', 'failed') "
        "ORDER BY started_at DESC LIMIT 1",
        [target],
    )


class AuditNotResumableError(ValueError):
    """``--resume`` named an audit that does not exist, belongs to another target, or is
    finished. A finished audit is history: resuming it would rewrite its claims and risk (a
    failed one never decided, so it may be resumed)."""


def check_resumable(warehouse: Warehouse, audit_id: str, target: str) -> None:
    """Raise ``AuditNotResumableError`` unless ``audit_id`` is an unfinished (running or
    failed) audit of ``target``."""
    row = (
        warehouse.query("SELECT target, status FROM audits WHERE audit_id = ?", [audit_id])
        if warehouse.path.exists()
        else None
    )
    if row is None or row.empty or row["target"].iloc[0] != target:
        raise AuditNotResumableError(
            f"cannot resume audit {audit_id!r}: no such audit of target {target!r}"
        )
    status = row["status"].iloc[0]
    if status not in ("running", "failed"):
        raise AuditNotResumableError(
            f"cannot resume audit {audit_id!r}: it is {status}, and a finished audit is never "
            "changed; run a new audit instead"
        )


def response_row(record: ResponseRecord) -> dict[str, Any]:
    """The ``responses`` row of one record (citations as JSON)."""
    row = record.to_row()
    row["citations"] = json.dumps(row["citations"])
    return row


def write_responses(warehouse: Warehouse, audit_id: str, records: Sequence[ResponseRecord]) -> int:
    return warehouse.replace(
        "responses", [response_row(r) for r in records], {"audit_id": audit_id}
    )


def load_responses(warehouse: Warehouse, audit_id: str) -> pd.DataFrame:
    """An audit's responses, ordered by prompt id and turn."""
    return warehouse.query(
        "SELECT * FROM responses WHERE audit_id = ? ORDER BY prompt_id, turn", [audit_id]
    )


def load_response_records(warehouse: Warehouse, audit_id: str) -> list[ResponseRecord]:
    """An audit's responses as the records the runner produced."""
    records = []
    for row in load_responses(warehouse, audit_id).to_dict("records"):
        context = or_none(row["context"])
        records.append(
            ResponseRecord(
                audit_id=row["audit_id"],
                prompt_id=row["prompt_id"],
                turn=int(row["turn"]),
                target=row["target"],
                model=or_none(row["model"]),
                prompt=row["prompt"],
                response=or_none(row["response"]),
                citations=tuple(Citation(**item) for item in json.loads(row["citations"] or "[]")),
                context=None if context is None else tuple(context),
                latency_ms=or_none(row["latency_ms"]),
                prompt_tokens=or_none(row["prompt_tokens"]),
                completion_tokens=or_none(row["completion_tokens"]),
                cost=or_none(row["cost"]),
                error=or_none(row["error"]),
                attempts=int(row["attempts"]),
                from_cache=bool(row["from_cache"]),
                started_at=row["started_at"],
                finished_at=row["finished_at"],
                prompt_hash=row["prompt_hash"],
                guardrail_attempts=_int_or_none(row.get("guardrail_attempts")),
                guardrail_path=or_none(row.get("guardrail_path")),
            )
        )
    return records


def _int_or_none(value: Any) -> int | None:
    value = or_none(value)
    return None if value is None else int(value)
