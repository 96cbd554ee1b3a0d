"""Rows of the stages after the responses (claims, evidence, verdicts, assertion results, risk
scores, service stats) and their round trip.

Each stage is written with ``Warehouse.replace`` keyed by ``audit_id``: re-materialising a
stage for an audit replaces that audit's rows of that stage in one transaction and leaves every
other audit alone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from audit_pipeline.records.assertions import AssertionRow, CheckedClaim
from audit_pipeline.records.claims import AnsweredTurn, AuditClaim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.usage import LLMUsage
from audit_pipeline.records.verdict_provenance import Provenance
from audit_pipeline.records.verdicts import Verdict
from audit_pipeline.warehouse.store import Rows, Warehouse, or_none
from audit_pipeline.warehouse.table_rows import ClaimRow, EvidenceRow, VerdictRow
from audit_pipeline.warehouse.verdict_history import CHUNK_HISTORY_SQL


def answered_turns(responses: pd.DataFrame) -> list[AnsweredTurn]:
    """Responses rows (as loaded by ``load_responses``) as detection inputs."""
    turns = []
    for row in responses.itertuples(index=False):
        context = or_none(row.context)
        turns.append(
            AnsweredTurn(
                prompt_id=row.prompt_id,
                turn=int(row.turn),
                response=or_none(row.response),
                context=tuple(context) if context is not None and len(context) else None,
                error=or_none(row.error),
            )
        )
    return turns


def write_claims(
    warehouse: Warehouse,
    audit_id: str,
    claims: Sequence[AuditClaim],
    extraction_key: str | None = None,
) -> int:
    """The audit's claims, replacing its earlier ones; ``extraction_key`` is what extracted
    them (``extraction_identity``)."""
    rows = [ClaimRow.of(audit_id, c, extraction_key).column_values() for c in claims]
    return warehouse.replace("claims", rows, {"audit_id": audit_id})


def _claim_rows(warehouse: Warehouse, audit_id: str) -> list[ClaimRow]:
    frame = warehouse.query(
        "SELECT * FROM claims WHERE audit_id = ? ORDER BY prompt_id, turn, start_char", [audit_id]
    )
    return [ClaimRow.model_validate(row) for row in frame.to_dict("records")]


def load_claims(warehouse: Warehouse, audit_id: str) -> list[AuditClaim]:
    return [row.audit_claim() for row in _claim_rows(warehouse, audit_id)]


def kept_claims(warehouse: Warehouse, audit_id: str, extraction_key: str) -> list[AuditClaim]:
    """The audit's stored claims when every one of them was extracted with ``extraction_key``
    (the answers of an audit never change, so the same extraction would find the same claims);
    empty when there are none, or any was extracted otherwise."""
    rows = _claim_rows(warehouse, audit_id)
    if not rows or any(row.extraction_key != extraction_key for row in rows):
        return []
    return [row.audit_claim() for row in rows]


def evidence_rows(
    audit_id: str, evidence: Mapping[str, list[EvidencePassage]]
) -> list[dict[str, Any]]:
    """Evidence rows of one audit; each passage keeps its own ``fallback_mode``.

    The flag belongs to how a passage was found, not to the audit: logged-context passages
    never fall back, and vault searches before and after an embedding outage differ.
    """
    return [
        EvidenceRow.of(audit_id, claim_id, rank, passage).column_values()
        for claim_id, passages in evidence.items()
        for rank, passage in enumerate(passages, start=1)
    ]


def write_evidence(
    warehouse: Warehouse, audit_id: str, evidence: dict[str, list[EvidencePassage]]
) -> int:
    return warehouse.replace("evidence", evidence_rows(audit_id, evidence), {"audit_id": audit_id})


def load_evidence(warehouse: Warehouse, audit_id: str) -> dict[str, list[EvidencePassage]]:
    frame = warehouse.query(
        "SELECT * FROM evidence WHERE audit_id = ? ORDER BY claim_id, rank", [audit_id]
    )
    evidence: dict[str, list[EvidencePassage]] = defaultdict(list)
    for record in frame.to_dict("records"):
        row = EvidenceRow.model_validate(record)
        evidence[row.claim_id].append(row.passage())
    return dict(evidence)


def verdict_rows(
    audit_id: str,
    claims: Sequence[AuditClaim],
    verdicts: Sequence[Verdict],
    provenance: Mapping[str, Provenance] | None = None,
    unmarked: Mapping[str, Verdict] | None = None,
) -> list[dict[str, Any]]:
    """The ``verdicts`` rows of ``claims``; ``provenance`` and ``unmarked`` as for
    ``write_verdicts``."""
    rows = []
    for claim, verdict in zip(claims, verdicts, strict=True):
        origin = (provenance or {}).get(claim.claim_id)
        row = VerdictRow.of(
            audit_id,
            claim,
            verdict,
            verdict_key=origin.verdict_key if origin else None,
            vault_state=origin.vault_state if origin else None,
            carried_from=origin.carried_from if origin else None,
            verifier_verdict=(unmarked or {}).get(claim.claim_id),
        )
        rows.append(row.column_values())
    return rows


def judge_usage_columns(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """The ``audits`` columns that sum what judging ``verdicts`` cost."""
    total = sum((v.usage for v in verdicts), LLMUsage())
    return {
        "judge_calls": total.calls,
        "judge_prompt_tokens": total.prompt_tokens,
        "judge_completion_tokens": total.completion_tokens,
        "judge_cost_usd": total.cost_usd,
    }


def write_verdicts(
    warehouse: Warehouse,
    audit_id: str,
    claims: Sequence[AuditClaim],
    verdicts: Sequence[Verdict],
    provenance: Mapping[str, Provenance] | None = None,
    *,
    keep_chunk_history: bool = False,
    verifier_chain: str | None = None,
    unmarked: Mapping[str, Verdict] | None = None,
) -> int:
    """Verdict rows, and their judge usage summed onto the audit row (with the verifier chain's
    description, JSON, when given), in one transaction.

    ``provenance`` (claim id -> key, vault state, carried from) comes from
    ``assemble_verification``.
    ``unmarked`` (claim id -> verdict) keeps the verifier's own verdict beside each one an
    analyst's mark changed.
    ``keep_chunk_history`` adds the current vault chunks to ``vault_chunk_history`` in the same
    transaction (an audit's verdicts; a single validation's rest on no vault state).

    A re-verified audit therefore shows the judge bill of its latest verdicts, never a mix.
    """
    usage: dict[str, Any] = judge_usage_columns(verdicts)
    if verifier_chain is not None:
        usage["verifier_chain"] = verifier_chain
    return warehouse.replace_many(
        [
            (
                "verdicts",
                verdict_rows(audit_id, claims, verdicts, provenance, unmarked),
                {"audit_id": audit_id},
            )
        ],
        statements=[
            (
                f"UPDATE audits SET {', '.join(f'{c} = ?' for c in usage)} WHERE audit_id = ?",
                [*usage.values(), audit_id],
            ),
            *([(CHUNK_HISTORY_SQL, [])] if keep_chunk_history else []),
        ],
    )


def judge_usage(warehouse: Warehouse, audit_id: str) -> dict[str, Any]:
    """The audit's judge totals (``calls``, tokens, ``cost_usd``), as written with its verdicts.

    All None for an audit whose verdicts are not written yet (or predate migration 6).
    """
    keys = ("calls", "prompt_tokens", "completion_tokens", "cost_usd")
    with warehouse.connect(read_only=True) as con:  # fetchone keeps NULLs as None, ints as int
        row = con.execute(
            "SELECT judge_calls, judge_prompt_tokens, judge_completion_tokens, judge_cost_usd "
            "FROM audits WHERE audit_id = ?",
            [audit_id],
        ).fetchone()
    return dict(zip(keys, row or (None,) * len(keys), strict=True))


def labels_by_turn(warehouse: Warehouse, audit_id: str) -> dict[tuple[str, int], list[str]]:
    frame = warehouse.query(
        "SELECT prompt_id, turn, label FROM verdicts WHERE audit_id = ?", [audit_id]
    )
    labels: dict[tuple[str, int], list[str]] = defaultdict(list)
    for row in frame.itertuples(index=False):
        labels[(row.prompt_id, int(row.turn))].append(row.label)
    return dict(labels)


def checked_claims_by_turn(
    warehouse: Warehouse, audit_id: str
) -> dict[tuple[str, int], list[CheckedClaim]]:
    """Each answer's claims with their spans and verdict labels (for ``must_not_assert``)."""
    frame = warehouse.query(
        "SELECT c.prompt_id, c.turn, c.start_char, c.end_char, c.text, v.label"
        " FROM claims c LEFT JOIN verdicts v ON v.audit_id = c.audit_id"
        " AND v.claim_id = c.claim_id WHERE c.audit_id = ? ORDER BY c.start_char",
        [audit_id],
    )
    claims: dict[tuple[str, int], list[CheckedClaim]] = defaultdict(list)
    for row in frame.itertuples(index=False):
        claims[(row.prompt_id, int(row.turn))].append(
            CheckedClaim(int(row.start_char), int(row.end_char), row.text, or_none(row.label))
        )
    return dict(claims)


def write_assertion_results(
    warehouse: Warehouse, audit_id: str, rows: Sequence[AssertionRow]
) -> int:
    return warehouse.replace(
        "assertion_results",
        [{"audit_id": audit_id, **row.to_row()} for row in rows],
        {"audit_id": audit_id},
    )


def load_assertion_rows(warehouse: Warehouse, audit_id: str) -> list[AssertionRow]:
    frame = warehouse.query(
        "SELECT * FROM assertion_results WHERE audit_id = ? ORDER BY prompt_id, turn", [audit_id]
    )
    return [
        AssertionRow(
            prompt_id=row.prompt_id,
            turn=int(row.turn),
            category=row.category,
            assertion=row.assertion,
            passed=bool(row.passed),
            detail=or_none(row.detail) or "",
            expected_behavior=or_none(row.expected_behavior),
            fell_back=bool(row.fell_back),
            citation_errors=int(row.citation_errors),
        )
        for row in frame.itertuples(index=False)
    ]


def write_risk_scores(
    warehouse: Warehouse,
    audit_id: str,
    rows: Sequence[dict[str, Any]],
    *,
    decision: str,
    rule: str,
    risk: float | None,
) -> None:
    """Risk rows and the audit's release decision with its rule, together: a reader never sees
    one without the other."""
    warehouse.replace_many(
        [("risk_scores", [{"audit_id": audit_id, **row} for row in rows], {"audit_id": audit_id})],
        statements=[
            (
                "UPDATE audits SET decision = ?, decision_rule = ?, risk = ?, status = 'finished',"
                " finished_at = ? WHERE audit_id = ?",
                [decision, rule, risk, datetime.now(UTC), audit_id],
            )
        ],
    )


def service_stats_write(
    audit_id: str,
    stage: str,
    service: str,
    *,
    requests: int,
    failures: int,
    fallbacks: int = 0,
    state: str | None = None,
) -> tuple[str, Rows, dict[str, Any]]:
    """The ``replace_many`` entry of one service-stats row, to write it with a stage's rows."""
    row = {
        "audit_id": audit_id,
        "stage": stage,
        "service": service,
        "requests": requests,
        "failures": failures,
        "fallbacks": fallbacks,
        "state": state,
    }
    return ("service_stats", [row], {"audit_id": audit_id, "stage": stage, "service": service})
