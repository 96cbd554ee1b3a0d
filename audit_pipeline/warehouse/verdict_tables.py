"""Rows of the stages after the responses (claims, evidence, verdicts, assertion results, risk
scores, service stats) and their round trip.

Each stage is written with ``Warehouse.replace`` keyed by ``audit_id``: re-materialising a
stage for an audit replaces that audit's rows of that stage in one transaction and leaves every
other audit alone.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from audit_pipeline.assertions.assertion_outcome import AssertionRow
from audit_pipeline.assertions.denial import CheckedClaim
from audit_pipeline.claims.audit_claims import AnsweredTurn, AuditClaim
from audit_pipeline.claims.claim import Claim
from audit_pipeline.evidence.passages import EvidencePassage
from audit_pipeline.llm.usage import LLMUsage
from audit_pipeline.verification.verdict import Verdict
from audit_pipeline.warehouse.store import Warehouse, or_none


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


def write_claims(warehouse: Warehouse, audit_id: str, claims: Sequence[AuditClaim]) -> int:
    rows = [
        {
            "audit_id": audit_id,
            "prompt_id": c.prompt_id,
            "turn": c.turn,
            "claim_id": c.claim_id,
            "text": c.claim.text,
            "start_char": c.claim.start,
            "end_char": c.claim.end,
            "kind": c.claim.kind,
            "extractor": c.extractor,
        }
        for c in claims
    ]
    return warehouse.replace("claims", rows, {"audit_id": audit_id})


def load_claims(warehouse: Warehouse, audit_id: str) -> list[AuditClaim]:
    frame = warehouse.query(
        "SELECT * FROM claims WHERE audit_id = ? ORDER BY prompt_id, turn, start_char", [audit_id]
    )
    return [
        AuditClaim(
            claim_id=row.claim_id,
            prompt_id=row.prompt_id,
            turn=int(row.turn),
            claim=Claim(
                claim_id=row.claim_id,
                text=row.text,
                start=int(row.start_char),
                end=int(row.end_char),
                kind=row.kind,
            ),
            extractor=row.extractor,
        )
        for row in frame.itertuples(index=False)
    ]


def write_evidence(
    warehouse: Warehouse, audit_id: str, evidence: dict[str, list[EvidencePassage]]
) -> int:
    """Evidence rows of one audit; each passage keeps its own ``fallback_mode``.

    The flag belongs to how a passage was found, not to the audit: logged-context passages
    never fall back, and vault searches before and after an embedding outage differ.
    """
    rows = [
        {
            "audit_id": audit_id,
            "claim_id": claim_id,
            "rank": rank,
            "chunk_id": p.chunk_id,
            "document": p.document,
            "section": p.section,
            "text": p.text,
            "vector_score": p.vector_score,
            "bm25_score": p.bm25_score,
            "fused_score": p.fused_score,
            "source": p.source,
            "fallback_mode": p.fallback_mode,
        }
        for claim_id, passages in evidence.items()
        for rank, p in enumerate(passages, start=1)
    ]
    return warehouse.replace("evidence", rows, {"audit_id": audit_id})


def load_evidence(warehouse: Warehouse, audit_id: str) -> dict[str, list[EvidencePassage]]:
    frame = warehouse.query(
        "SELECT * FROM evidence WHERE audit_id = ? ORDER BY claim_id, rank", [audit_id]
    )
    evidence: dict[str, list[EvidencePassage]] = defaultdict(list)
    for row in frame.itertuples(index=False):
        evidence[row.claim_id].append(
            EvidencePassage(
                chunk_id=row.chunk_id,
                text=row.text,
                document=or_none(row.document) or "",
                section=or_none(row.section) or "",
                vector_score=or_none(row.vector_score),
                bm25_score=or_none(row.bm25_score),
                fused_score=float(row.fused_score),
                source=row.source,
                fallback_mode=bool(row.fallback_mode),
            )
        )
    return dict(evidence)


def write_verdicts(
    warehouse: Warehouse, audit_id: str, claims: Sequence[AuditClaim], verdicts: Sequence[Verdict]
) -> int:
    """Verdict rows, and their judge usage summed onto the audit row, in one transaction.

    A re-verified audit therefore shows the judge bill of its latest verdicts, never a mix.
    ``error_spans`` is stored as JSON ``[[start, end], ...]`` relative to the claim text, so it
    stays meaningful whatever span the claim has in the response.
    """
    rows = [
        {
            "audit_id": audit_id,
            "claim_id": c.claim_id,
            "prompt_id": c.prompt_id,
            "turn": c.turn,
            "label": str(v.label),
            "probability": v.probability,
            "justification": v.justification,
            "supporting_chunk_ids": list(v.supporting_chunk_ids),
            "verifier": v.verifier,
            "verifier_version": v.verifier_version,
            "decided_by": v.decided_by,
            "judge_calls": v.judge_calls,
            "prompt_tokens": v.prompt_tokens,
            "completion_tokens": v.completion_tokens,
            "cost_usd": v.cost_usd,
            "error_spans": json.dumps([[int(lo), int(hi)] for lo, hi in v.error_spans]),
        }
        for c, v in zip(claims, verdicts, strict=True)
    ]
    total = sum((v.usage for v in verdicts), LLMUsage())
    return warehouse.replace_many(
        [("verdicts", rows, {"audit_id": audit_id})],
        statements=[
            (
                "UPDATE audits SET judge_calls = ?, judge_prompt_tokens = ?, "
                "judge_completion_tokens = ?, judge_cost_usd = ? WHERE audit_id = ?",
                [
                    total.calls,
                    total.prompt_tokens,
                    total.completion_tokens,
                    total.cost_usd,
                    audit_id,
                ],
            )
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
    risk: float | None,
) -> None:
    """Risk rows and the audit's decision, together: a reader never sees one without the other."""
    warehouse.replace_many(
        [("risk_scores", [{"audit_id": audit_id, **row} for row in rows], {"audit_id": audit_id})],
        statements=[
            (
                "UPDATE audits SET decision = ?, risk = ?, status = 'finished', finished_at = ? "
                "WHERE audit_id = ?",
                [decision, risk, datetime.now(UTC), audit_id],
            )
        ],
    )


def write_service_stats(
    warehouse: Warehouse,
    audit_id: str,
    stage: str,
    service: str,
    *,
    requests: int,
    failures: int,
    fallbacks: int = 0,
    state: str | None = None,
) -> None:
    """How one stage's calls to a model service went (for metrics and post-mortems)."""
    row = {
        "audit_id": audit_id,
        "stage": stage,
        "service": service,
        "requests": requests,
        "failures": failures,
        "fallbacks": fallbacks,
        "state": state,
    }
    warehouse.replace(
        "service_stats", [row], {"audit_id": audit_id, "stage": stage, "service": service}
    )
