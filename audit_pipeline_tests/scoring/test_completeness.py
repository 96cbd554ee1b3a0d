from __future__ import annotations

from datetime import UTC, datetime

from audit_pipeline.records.responses import ResponseRecord
from audit_pipeline.scoring.completeness import completeness
from audit_pipeline.scoring.gates import GateSettings, evaluate_gates
from audit_pipeline.scoring.rules import DEFAULT_THRESHOLDS, release_decision

SUMMARY = {
    "pass_rate": 1.0,
    "hallucinations": 0,
    "citation_errors": 0,
    "fallback_errors": 0,
}


def _record(prompt_id: str, error: str | None = None) -> ResponseRecord:
    now = datetime.now(UTC)
    return ResponseRecord(
        "a", prompt_id, 0, "t", None, "q", None if error else "answer", (), None, 1.0, None,
        None, None, error, 1, False, now, now, "h",
    )  # fmt: skip


def test_shares_over_the_limit_are_named() -> None:
    records = [_record("A"), _record("B", "HTTP 503"), _record("C")]
    labels = {("A", 0): ["unverifiable", "supported"], ("C", 0): ["unverifiable"]}
    found = completeness(records, labels)
    assert (found.turns, found.unanswered, found.claims, found.unverifiable) == (3, 1, 3, 2)
    assert found.problems(0.5) == ["2 of 3 claims could not be verified (67% > 50%)"]
    assert len(found.problems(0.2)) == 2
    assert found.problems(1.0) == []
    assert completeness([], {}).problems(0.0) == []  # nothing asked, nothing missing


def _release(risk: float, why: list[str], on_incomplete: str = "incomplete") -> str:
    gates = evaluate_gates(
        SUMMARY,
        GateSettings(),
        risk=risk,
        thresholds=DEFAULT_THRESHOLDS,
        incomplete=why,
        on_incomplete=on_incomplete,  # type: ignore[arg-type]
    )
    return str(release_decision(gates))


def test_incomplete_is_the_worst_decision_unless_configured_to_block() -> None:
    why = ["3 of 3 claims could not be verified (100% > 20%)"]
    assert _release(0.0, why) == f"incomplete: {why[0]}"
    # Worse than a block: what was checked cannot be trusted when too much is missing.
    assert _release(0.9, why) == f"incomplete: {why[0]}"
    assert _release(0.0, why, "block") == f"block: {why[0]}"
    assert _release(0.0, []) == "deploy: risk 0.000 ≤ 0.10, every gate passed"
