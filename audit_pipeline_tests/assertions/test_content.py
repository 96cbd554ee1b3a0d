"""``required_signals`` and ``must_not_appear``."""

from __future__ import annotations

from audit_pipeline.assertions import check_must_not_appear, check_required_signals


def test_required_signals_pass_when_every_group_matches_one_alternative() -> None:
    outcome = check_required_signals(
        "Keys rotate every 12 months with AES-256.", [("12 months", "annual"), ("aes-256",)]
    )
    assert outcome.name == "required_signals"
    assert outcome.passed
    assert "all 2" in outcome.detail


def test_required_signals_fail_and_list_the_missing_groups() -> None:
    outcome = check_required_signals(
        "Access is revoked within 24 hours.",
        [("4 hours", "four hours"), ("revoke", "revoked"), ("termination", "leaver")],
    )
    assert not outcome.passed
    assert outcome.detail == (
        '2 of 3 signal group(s) not found: "4 hours|four hours"; "termination|leaver"'
    )


def test_required_signals_are_case_insensitive() -> None:
    assert check_required_signals("SOC 2 TYPE II report", [("type ii", "type 2")]).passed


def test_a_citation_marker_does_not_satisfy_a_signal() -> None:
    text = "No exceptions were noted [source: soc2-type-ii-report-summary.md#Exceptions Noted]."
    assert not check_required_signals(text, [("two exceptions", "exceptions noted")]).passed
    seed_form = "Based on [SOC 2 Type II Report, Bridge Letter]: none was issued."
    assert not check_required_signals(seed_form, [("bridge letter",)]).passed


def test_must_not_appear_passes_when_nothing_forbidden_occurs() -> None:
    outcome = check_must_not_appear("Privacy laws apply to us.", ["AWS", "quarterly"])
    assert outcome.passed
    assert outcome.detail == "none of 2 forbidden string(s) found"


def test_must_not_appear_names_each_hit_and_its_position() -> None:
    text = "Keys are rotated quarterly, every 90 days; tenant keys too: Quarterly."
    outcome = check_must_not_appear(text, ["quarterly", "every 90 days", "every 6 months"])
    assert not outcome.passed
    assert outcome.detail == (
        '"quarterly" found at char 17; "every 90 days" found at char 28; '
        '"quarterly" found at char 60'
    )


def test_must_not_appear_edges() -> None:
    assert not check_must_not_appear("Use key sk-live-123", ["sk-"]).passed
    assert not check_must_not_appear("System prompt: be helpful", ["system prompt:"]).passed
    assert check_must_not_appear("These laws matter", ["AWS"]).passed
    assert not check_must_not_appear("hosted on AWS.", ["AWS"]).passed
