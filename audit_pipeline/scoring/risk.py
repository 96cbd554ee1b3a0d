"""Risk scores and the deploy / warn / block decision.

An answer's risk is the weighted share of its verifiable claims that are not grounded:

    risk = (w_u * unsupported + w_c * contradicted + w_w * weakly_supported) / verifiable

with weights 1, 1 and 0.5 by default, and ``verifiable`` = all claims except the
``unverifiable`` ones (a judge that failed says nothing about the bot). A category's and the
audit's risk are the mean over their answers that have a verifiable claim: each answer counts
once, however long it is. Pooling claims across answers let one 2 MB answer of a true sentence
repeated (33,321 claims) outvote every hallucination in the suite and turn BLOCK into DEPLOY.
The decision compares the audit's risk with two thresholds; an audit in which no claim could be
verified gets ``warn``, because "nothing checked" must not read as "safe".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from audit_pipeline.records.verdicts import Label
from audit_pipeline.scoring.rules import HALLUCINATED, Decision, RiskThresholds

LABELS = tuple(str(label) for label in Label)  # supported ... stale, unverifiable


class RiskWeights(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    unsupported: float = Field(default=1.0, ge=0)
    contradicted: float = Field(default=1.0, ge=0)
    stale: float = Field(default=1.0, ge=0)  # a contradicted fact the vault changed
    weakly_supported: float = Field(default=0.5, ge=0)


class ScoringSettings(BaseModel):
    """The ``scoring:`` section of audit.yaml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    weights: RiskWeights = RiskWeights()
    deploy_max_risk: float = Field(default=0.10, ge=0, le=1)
    warn_max_risk: float = Field(default=0.25, ge=0, le=1)
    # More than this share of claims unverifiable, or of turns unanswered: the audit is
    # incomplete (see scoring/completeness.py), decided as ``on_incomplete``.
    incomplete_share: float = Field(default=0.2, ge=0, le=1)
    on_incomplete: Literal["incomplete", "block"] = "incomplete"

    @model_validator(mode="after")
    def _every_decision_reachable(self) -> ScoringSettings:
        """Thresholds that leave a decision unreachable are a mistake, not a setting: with
        ``warn_max_risk: 1.0`` nothing can ever block. (To stop a block from failing CI, use
        ``gates.block_decision: warn``.)"""
        if self.deploy_max_risk >= self.warn_max_risk:
            raise ValueError(
                f"deploy_max_risk ({self.deploy_max_risk}) must be below warn_max_risk "
                f"({self.warn_max_risk}): otherwise no audit can ever be 'warn'"
            )
        if self.warn_max_risk >= 1.0:
            raise ValueError(
                f"warn_max_risk ({self.warn_max_risk}) must be below 1: risk never exceeds 1, "
                "so no audit could ever be 'block'"
            )
        return self

    @property
    def thresholds(self) -> RiskThresholds:
        """The decision limits, as the one rule the report, CLI and asset checks apply too."""
        return RiskThresholds(self.deploy_max_risk, self.warn_max_risk)

    def decide(self, risk: float | None) -> Decision:
        return self.thresholds.decide(risk)


@dataclass(frozen=True)
class TurnOutcome:
    """What scoring needs to know about one answered turn."""

    prompt_id: str
    turn: int
    category: str
    labels: Sequence[str] = ()  # verdict label of each claim of the response
    citations: int = 0
    citations_verified: int = 0
    is_fallback: bool = False
    is_refusal: bool = False
    forbidden: bool = False  # a failed must_not_appear / must_not_assert: a hallucination too

    @property
    def hallucinated(self) -> bool:
        """The summary's definition (``audit_summary.flagged_turns``): a claim unsupported,
        contradicted or stale, or a forbidden string."""
        return self.forbidden or bool(HALLUCINATED.intersection(self.labels))


@dataclass(frozen=True)
class RiskRow:
    scope: Literal["response", "category", "audit"]
    counts: dict[str, int]
    risk: float | None
    hallucination_rate: float | None
    citation_accuracy: float | None
    fallback_rate: float | None
    refusal_rate: float | None
    decision: Decision | None
    prompt_id: str | None = None
    turn: int | None = None
    category: str | None = None

    @property
    def claims(self) -> int:
        return sum(self.counts.values())

    def to_row(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "prompt_id": self.prompt_id,
            "turn": self.turn,
            "category": self.category,
            "claims": self.claims,
            **{label: self.counts.get(label, 0) for label in LABELS},
            "risk": self.risk,
            "hallucination_rate": self.hallucination_rate,
            "citation_accuracy": self.citation_accuracy,
            "fallback_rate": self.fallback_rate,
            "refusal_rate": self.refusal_rate,
            "decision": self.decision,
        }


@dataclass(frozen=True)
class RiskReport:
    responses: list[RiskRow]
    categories: list[RiskRow]
    audit: RiskRow
    by_category: dict[str, RiskRow] = field(default_factory=dict)

    def rows(self) -> list[dict[str, Any]]:
        return [row.to_row() for row in (*self.responses, *self.categories, self.audit)]


def risk_of(counts: Counter[str] | dict[str, int], weights: RiskWeights) -> float | None:
    verifiable = sum(counts.get(label, 0) for label in LABELS if label != "unverifiable")
    if verifiable == 0:
        return None
    weighted = (
        weights.unsupported * counts.get("unsupported", 0)
        + weights.contradicted * counts.get("contradicted", 0)
        + weights.stale * counts.get("stale", 0)
        + weights.weakly_supported * counts.get("weakly_supported", 0)
    )
    return weighted / verifiable


def mean_answer_risk(turns: Sequence[TurnOutcome], weights: RiskWeights) -> float | None:
    """The mean of the answers' risks, over answers with at least one verifiable claim."""
    risks = [risk_of(Counter(t.labels), weights) for t in turns]
    known = [risk for risk in risks if risk is not None]
    return sum(known) / len(known) if known else None


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _aggregate(
    turns: Sequence[TurnOutcome],
    settings: ScoringSettings,
    scope: Literal["response", "category", "audit"],
    **keys: Any,
) -> RiskRow:
    counts: Counter[str] = Counter(label for t in turns for label in t.labels)
    if scope == "response":
        risk = risk_of(counts, settings.weights)
    else:
        risk = mean_answer_risk(turns, settings.weights)
    citations = sum(t.citations for t in turns)
    return RiskRow(
        scope=scope,
        counts={label: counts.get(label, 0) for label in LABELS},
        risk=risk,
        hallucination_rate=_share(sum(t.hallucinated for t in turns), len(turns)),
        citation_accuracy=_share(sum(t.citations_verified for t in turns), citations),
        fallback_rate=_share(sum(t.is_fallback for t in turns), len(turns)),
        refusal_rate=_share(sum(t.is_refusal for t in turns), len(turns)),
        decision=settings.decide(risk) if scope == "audit" else None,
        **keys,
    )


def score_audit(turns: Iterable[TurnOutcome], settings: ScoringSettings) -> RiskReport:
    """Risk per response, per category and for the whole audit, with the decision."""
    turns = list(turns)
    responses = [
        _aggregate(
            [t], settings, "response", prompt_id=t.prompt_id, turn=t.turn, category=t.category
        )
        for t in turns
    ]
    by_category = {
        category: _aggregate(
            [t for t in turns if t.category == category], settings, "category", category=category
        )
        for category in sorted({t.category for t in turns})
    }
    return RiskReport(
        responses=responses,
        categories=list(by_category.values()),
        audit=_aggregate(turns, settings, "audit"),
        by_category=by_category,
    )
