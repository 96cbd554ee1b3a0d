from __future__ import annotations

from datetime import UTC, datetime

from audit_pipeline.scoring.completeness import completeness
from audit_pipeline.scoring.gates import GateSettings, evaluate_gates
from audit_pipeline.scoring.rules import final_decision
from audit_pipeline.targets.response_record import ResponseRecord

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


def test_incomplete_is_never_a_pass_and_a_block_stands() -> None:
    why = ["3 of 3 claims could not be verified (100% > 20%)"]
    assert final_decision("deploy", why, "incomplete") == "incomplete"
    assert final_decision("warn", why, "block") == "block"
    assert final_decision("block", why, "incomplete") == "block"
    assert final_decision("deploy", [], "incomplete") == "deploy"
    gate = evaluate_gates(SUMMARY, "incomplete", GateSettings(), why)[0]
    assert (gate.name, gate.status) == ("decision", "error") and why[0] in gate.detail
    # on_incomplete: block still fails the gate, even where block only warns.
    lenient = GateSettings(block_decision="warn")
    assert evaluate_gates(SUMMARY, "block", lenient, why)[0].status == "error"
    assert evaluate_gates(SUMMARY, "block", lenient)[0].status == "warn"
