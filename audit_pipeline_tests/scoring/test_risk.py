from __future__ import annotations

import pytest
from pydantic import ValidationError

from audit_pipeline.scoring.risk import (
    RiskWeights,
    ScoringSettings,
    TurnOutcome,
    risk_of,
    score_audit,
)


def test_risk_formula_weights_and_ignores_unverifiable() -> None:
    weights = RiskWeights()
    counts = {
        "supported": 5,
        "weakly_supported": 2,
        "unsupported": 1,
        "contradicted": 1,
        "unverifiable": 3,
    }
    # (1 + 1 + 0.5 * 2) / (5 + 2 + 1 + 1) = 3 / 9
    assert risk_of(counts, weights) == pytest.approx(3 / 9)
    heavy = RiskWeights(contradicted=2.0, weakly_supported=0.0)
    assert risk_of(counts, heavy) == pytest.approx(3 / 9)
    assert risk_of({"unverifiable": 4}, weights) is None
    assert risk_of({}, weights) is None


@pytest.mark.parametrize(
    ("risk", "decision"),
    [
        (0.0, "deploy"),
        (0.10, "deploy"),
        (0.1001, "warn"),
        (0.25, "warn"),
        (0.2501, "block"),
        (1.0, "block"),
        (None, "warn"),
    ],
)
def test_default_thresholds(risk: float | None, decision: str) -> None:
    assert ScoringSettings().decide(risk) == decision


def test_thresholds_are_configurable_and_validated() -> None:
    strict = ScoringSettings(deploy_max_risk=0.0, warn_max_risk=0.05)
    assert strict.decide(0.01) == "warn"
    assert strict.decide(0.06) == "block"
    with pytest.raises(ValidationError, match="must be below warn_max_risk"):
        ScoringSettings(deploy_max_risk=0.3, warn_max_risk=0.2)
    with pytest.raises(ValidationError, match="must be below warn_max_risk"):
        ScoringSettings(deploy_max_risk=0.2, warn_max_risk=0.2)  # warn unreachable
    with pytest.raises(ValidationError, match="could ever be 'block'"):
        ScoringSettings(warn_max_risk=1.0)


def test_scores_per_response_category_and_audit() -> None:
    turns = [
        TurnOutcome(
            "ENC-1", 0, "encryption", ("supported", "supported"), citations=1, citations_verified=1
        ),
        TurnOutcome(
            "ENC-2",
            0,
            "encryption",
            ("supported", "contradicted"),
            citations=2,
            citations_verified=1,
        ),
        TurnOutcome("SUB-1", 0, "subprocessors", (), is_fallback=True),
        TurnOutcome("ADV-1", 0, "adversarial", (), is_refusal=True),
    ]
    report = score_audit(turns, ScoringSettings())
    assert [r.prompt_id for r in report.responses] == ["ENC-1", "ENC-2", "SUB-1", "ADV-1"]
    assert report.responses[0].risk == 0.0
    assert report.responses[1].risk == pytest.approx(0.5)
    assert report.responses[2].risk is None  # nothing to verify in a fallback
    enc = report.by_category["encryption"]
    assert enc.risk == pytest.approx(1 / 4)  # the mean of its answers' risks (0 and 0.5)
    assert enc.hallucination_rate == pytest.approx(0.5)
    assert enc.citation_accuracy == pytest.approx(2 / 3)
    audit = report.audit
    assert audit.claims == 4 and audit.counts["contradicted"] == 1
    assert audit.risk == pytest.approx(0.25)
    assert audit.decision == "warn"
    assert audit.fallback_rate == pytest.approx(0.25)
    assert audit.refusal_rate == pytest.approx(0.25)
    assert audit.hallucination_rate == pytest.approx(0.25)
    rows = report.rows()
    assert len(rows) == 4 + 3 + 1
    assert {r["scope"] for r in rows} == {"response", "category", "audit"}


def test_one_long_answer_counts_once_and_cannot_dilute_the_audit() -> None:
    """Three hallucinating answers and one answer of 33,321 true claims: pooled over claims
    the risk would be 0.0006 (deploy); per answer it stays 0.75 (block)."""
    bad = [TurnOutcome(f"B-{i}", 0, "c", ("unsupported",) * 2) for i in range(3)]
    long = TurnOutcome("LONG", 0, "c", ("supported",) * 33_321)
    silent = TurnOutcome("FALLBACK", 0, "c", (), is_fallback=True)
    report = score_audit([*bad, long, silent], ScoringSettings())
    assert report.audit.risk == pytest.approx(0.75)
    assert report.audit.decision == "block"
    assert report.by_category["c"].risk == pytest.approx(0.75)
    assert report.audit.claims == 33_327  # counts still say how many claims were checked
