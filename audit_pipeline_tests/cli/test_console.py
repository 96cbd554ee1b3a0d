"""What the console prints after the gates: the failing prompts, at most ten, with a reason;
the worst claims with their evidence as plain text."""

from __future__ import annotations

import io

from audit_pipeline.commands.console import print_failing_prompts, print_worst_claims


def _failure(prompt: str, assertion: str, detail: str, turn: int = 0) -> dict[str, object]:
    return {
        "prompt_id": prompt,
        "category": "c",
        "turn": turn,
        "assertion": assertion,
        "detail": detail,
    }


def test_each_failing_prompt_once_with_its_first_check_and_the_rest_counted() -> None:
    out = io.StringIO()
    failures = [
        _failure("ENC-003", "required_signals", 'missing "tls 1.2"'),
        _failure("ENC-003", "behavior", "no citation"),
        _failure("CHAIN-1", "must_not_appear", 'found "quarterly"\x1b[31m', turn=2),
    ]
    print_failing_prompts(failures, out)
    lines = out.getvalue().strip().splitlines()
    assert lines[0] == "failing prompts (2):"
    assert lines[1].split() == [
        "ENC-003",
        "required_signals:",
        "missing",
        '"tls',
        '1.2"',
        "(+1",
        "more)",
    ]
    assert lines[2].split()[:4] == ["CHAIN-1", "turn", "2", "must_not_appear:"]
    assert "\x1b" not in out.getvalue()  # model text cannot drive the terminal


def test_at_most_ten_then_how_many_more_the_report_lists() -> None:
    out = io.StringIO()
    print_failing_prompts([_failure(f"P-{n:02}", "behavior", "fell back") for n in range(13)], out)
    lines = out.getvalue().strip().splitlines()
    assert lines[0] == "failing prompts (13):" and len(lines) == 12
    assert lines[-1].strip() == "… 3 more in the report"


def test_nothing_failed_prints_nothing() -> None:
    out = io.StringIO()
    print_failing_prompts([], out)
    assert out.getvalue() == ""


def test_worst_claims_quote_their_evidence_as_plain_text() -> None:
    """A vault passage is Markdown; the quote under a claim is text a person reads."""
    out = io.StringIO()
    row = {
        "label": "contradicted",
        "probability": 0.05,
        "prompt_id": "AC-001",
        "claim": "Access is revoked within 24 hours.",
        "document": "access-control-policy.md",
        "section": "4.3 Leavers",
        "evidence": "### 4.3 Leavers\n- **All access is revoked within 4 hours** (control "
        "**TH-AC-04**).\n| Request | Turnaround |\n|---|---|\n| CAIQ | Immediate |",
    }
    print_worst_claims([row], out)
    quote = out.getvalue().splitlines()[-1]
    assert quote == (
        "    evidence (access-control-policy.md > 4.3 Leavers): 4.3 Leavers • All access is "
        "revoked within 4 hours (control TH-AC-04). Request · Turnaround; CAIQ · Immediate"
    )
