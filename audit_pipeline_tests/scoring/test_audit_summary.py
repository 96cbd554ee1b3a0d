"""``summarize``: prompt-level pass/fail and the headline counts."""

from __future__ import annotations

from audit_pipeline.assertions import AssertionRow
from audit_pipeline.scoring.audit_summary import answered_keys, summarize
from audit_pipeline_tests.assertions.helpers import record

KEYS = {
    "total",
    "passed",
    "failed",
    "pass_rate",
    "assertions_passed",
    "assertions_failed",
    "hallucinations",
    "citation_errors",
    "fallback_errors",
    "by_category",
    "failures",
}


def row(prompt_id: str, turn: int, category: str, assertion: str, passed: bool, **extra: object):
    return AssertionRow(prompt_id, turn, category, assertion, passed, "d", **extra)  # type: ignore[arg-type]


def test_a_prompt_passes_only_when_all_assertions_of_all_turns_pass() -> None:
    rows = [
        row("ENC-1", 0, "encryption", "behavior", True, expected_behavior="answer_with_citation"),
        row("ENC-1", 0, "encryption", "citations", True),
        row("MT-1", 0, "encryption", "behavior", True),
        row("MT-1", 1, "encryption", "no_agreement", False),
        row("SUB-1", 0, "subprocessors", "behavior", False, expected_behavior="fallback"),
        row("SUB-1", 0, "subprocessors", "must_not_appear", False),
        row(
            "AC-1",
            0,
            "access_control",
            "behavior",
            False,
            expected_behavior="answer_with_citation",
            fell_back=True,
        ),
        row("AC-1", 0, "access_control", "citations", False, citation_errors=2),
    ]
    responses = [record(pid, turn, "text") for pid, turn in {r.key for r in rows}]
    summary = summarize(rows, answered_keys(responses), {("ENC-1", 0), ("NOT-EVALUATED", 0)})
    data = summary.to_dict()
    assert set(data) == KEYS
    assert (data["total"], data["passed"], data["failed"]) == (4, 1, 3)
    assert data["pass_rate"] == 0.25
    assert (data["assertions_passed"], data["assertions_failed"]) == (3, 5)
    assert data["hallucinations"] == 2  # ENC-1 (claim verification) and SUB-1 (must_not_appear)
    assert data["citation_errors"] == 2
    assert data["fallback_errors"] == 2  # SUB-1 did not fall back; AC-1 fell back
    assert data["by_category"] == {
        "encryption": {"passed": 1, "failed": 1},
        "subprocessors": {"passed": 0, "failed": 1},
        "access_control": {"passed": 0, "failed": 1},
    }
    assert data["failures"][0] == {
        "prompt_id": "MT-1",
        "category": "encryption",
        "turn": 1,
        "assertion": "no_agreement",
        "detail": "d",
    }
    assert len(data["failures"]) == 5


def test_turns_without_a_reply_are_not_hallucinations() -> None:
    rows = [row("IR-1", 0, "incident_response", "behavior", False, expected_behavior="fallback")]
    errored = [record("IR-1", 0, None, error="timeout")]
    assert summarize(rows, answered_keys(errored), {("IR-1", 0)}).hallucinations == 0
    assert summarize(rows, None, {("IR-1", 0)}).hallucinations == 1


def test_an_empty_audit_is_not_green() -> None:
    summary = summarize([], [], set())
    assert (summary.total, summary.pass_rate, summary.failures) == (0, 0.0, ())
