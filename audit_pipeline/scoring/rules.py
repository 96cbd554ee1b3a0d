"""The one source of truth for an audit's thresholds, decisions, zones and summary counts.

Every place that turns numbers into a verdict about the audit calls this module: the engine's
risk decision (``scoring/risk.py``), the completeness rule, the release gates behind the asset
checks and the CLI's exit code (``scoring/gates.py``), the report's zones and colours, the
report's summary when it is rebuilt from the warehouse, and the analyst notebook. Written once,
so the report can never colour a category ``warn`` that the decision called ``deploy``: before
this module the report used ``risk >= threshold`` while the decision used ``risk <= threshold``,
and the two disagreed at exactly 0.10 and 0.25.

The boundaries, in words (the tests check each one exactly):

- risk ``<= deploy_max_risk`` is ``deploy``; ``<= warn_max_risk`` is ``warn``; above is
  ``block``; unknown risk (no verifiable claim) is ``warn`` for the decision ("nothing checked"
  must not read as safe) and no zone at all for a colour.
- a count gate fails when the count *exceeds* its limit (a limit of 0 allows none); the pass-rate
  gate fails when the rate falls *below* its limit.
- a fallback error is a failed ``behavior`` assertion on a turn that should have fallen back, or
  on a turn that should have answered with a citation and fell back instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

from audit_pipeline.verification.verdict import HALLUCINATION_LABELS

Decision = Literal["deploy", "warn", "block"]
Zone = Decision
GateStatus = Literal["pass", "warn", "error"]

INCOMPLETE: Final = "incomplete"
# Decisions from least to most severe (``incomplete`` says nothing was decided, the worst).
DECISION_ORDER: Final = ("deploy", "warn", "block", INCOMPLETE)
HALLUCINATED: Final = HALLUCINATION_LABELS  # unsupported, contradicted, stale
BEHAVIOR_ASSERTION: Final = "behavior"


@dataclass(frozen=True)
class RiskThresholds:
    """The two risk limits of the decision: up to ``deploy_max_risk`` deploys, up to
    ``warn_max_risk`` warns, anything above blocks (``scoring.*`` in audit.yaml)."""

    deploy_max_risk: float = 0.10
    warn_max_risk: float = 0.25

    def decide(self, risk: float | None) -> Decision:
        """The decision for an audit's risk; unknown risk warns (nothing could be checked)."""
        if risk is None:
            return "warn"
        return self.zone(risk) or "warn"

    def zone(self, risk: float | None) -> Zone | None:
        """The decision band ``risk`` falls in, for colouring a category, a chart bar or a trend
        point: the same comparison as ``decide``; None where the risk is unknown."""
        if risk is None:
            return None
        if risk <= self.deploy_max_risk:
            return "deploy"
        return "warn" if risk <= self.warn_max_risk else "block"

    def legend(self) -> str:
        """The thresholds as a reader should read them (the same comparisons as ``zone``)."""
        return f"deploy ≤ {self.deploy_max_risk:.2f}, warn ≤ {self.warn_max_risk:.2f}, block above"


DEFAULT_THRESHOLDS: Final = RiskThresholds()


def final_decision(risk_decision: str, problems: Iterable[str], on_incomplete: str) -> str:
    """The risk's decision, unless the audit is incomplete and that decision is not block: a
    ``block`` found in what was checked stands, since a bad release is bad even when part of
    the audit is missing."""
    if list(problems) and risk_decision != "block":
        return on_incomplete
    return risk_decision


def count_status(value: int, warn: int | None, error: int) -> GateStatus:
    """A count gate: ``error`` above ``error``, ``warn`` above ``warn`` (when it has one)."""
    if value > error:
        return "error"
    if warn is not None and value > warn:
        return "warn"
    return "pass"


def rate_status(rate: float, warn: float, error: float) -> GateStatus:
    """The pass-rate gate: ``error`` below ``error``, ``warn`` below ``warn``."""
    if rate < error:
        return "error"
    return "warn" if rate < warn else "pass"


def is_hallucinated(labels: Iterable[str]) -> bool:
    """True when any of a turn's claim labels is unsupported or contradicted."""
    return not HALLUCINATED.isdisjoint(labels)


def is_fallback_error(
    assertion: str, passed: bool, expected_behavior: str | None, fell_back: bool
) -> bool:
    """A fallback prompt that did not fall back cleanly, or an answer prompt that fell back.

    Counted on the ``behavior`` assertion only, so one turn is one fallback error however many
    of its other checks failed (the audit summary and the report both count with this)."""
    if assertion != BEHAVIOR_ASSERTION or passed:
        return False
    return expected_behavior == "fallback" or (
        expected_behavior == "answer_with_citation" and fell_back
    )
