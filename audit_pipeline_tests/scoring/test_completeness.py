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


ARABIC = "يتم الاحتفاظ بالنسخ الاحتياطية لمدة 35 يومًا."
HEBREW = "הגיבויים נשמרים למשך 35 יום ומוצפנים."


def _answer(prompt_id: str, text: str) -> ResponseRecord:
    from dataclasses import replace

    return replace(_record(prompt_id), response=text)


def test_an_answer_in_a_script_the_extractor_cannot_read_is_unverified() -> None:
    """Issue 33, row 9: alone, an Arabic answer used to end WARN (risk unknown) with exit 0;
    it made no claim, so nothing in it was checked, and the audit is incomplete."""
    alone = completeness([_answer("AR-1", ARABIC)], {})
    assert alone.unread == ("AR-1 turn 0 (Arabic)",)
    [why] = alone.problems(0.2)
    assert why.startswith("1 of 1 turns answered in a script the claim extractor does not read")
    assert "(100% of the turns unchecked > 20%)" in why
    assert _release(None, alone.problems(0.2)).startswith("incomplete: 1 of 1 turns")  # type: ignore[arg-type]


def test_inside_a_larger_audit_it_is_counted_and_named() -> None:
    """Below the limit the gate passes, but no longer says everything was verified."""
    records = [_answer("HE-1", HEBREW), *(_record(f"EN-{n}") for n in range(5))]
    labels = {(f"EN-{n}", 0): ["supported"] for n in range(5)}
    found = completeness(records, labels)
    assert found.problems(0.2) == []
    assert found.notes(0.2) == [
        "1 of 6 turns answered in a script the claim extractor does not read, so nothing in "
        "them was verified (HE-1 turn 0 (Hebrew))"
    ]
    [gate, *_] = evaluate_gates(
        SUMMARY,
        GateSettings(),
        risk=0.0,
        thresholds=DEFAULT_THRESHOLDS,
        unchecked=found.notes(0.2),
    )
    assert gate.status == "pass"
    assert gate.detail == f"enough answered and verified; {found.notes(0.2)[0]}"
    # With an unanswered turn beside it, the two together are over the limit.
    with_gap = completeness([*records, _record("EN-9", "HTTP 503")], labels)
    assert any("turns unchecked" in why for why in with_gap.problems(0.2))
    # A Latin answer without claims (a greeting) is not "unread".
    assert completeness([_answer("EN-7", "Hello!")], {}).unread == ()


def test_the_offline_extractor_reads_no_claim_from_other_scripts() -> None:
    from audit_pipeline.claims.extractor import SentenceClaimExtractor

    extractor = SentenceClaimExtractor()
    # Its digits used to make a "claim" the English models then judged.
    assert extractor.extract(ARABIC) == [] and extractor.extract(HEBREW) == []
    assert len(extractor.extract("Backups are kept for 35 days.")) == 1
