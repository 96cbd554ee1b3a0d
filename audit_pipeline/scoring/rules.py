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
- the **release decision** is the worst of what the gates say (``release_decision``): the risk
  gate carries the risk zone, the completeness gate the ``incomplete`` rule, the count and rate
  gates the summary; an ERROR means ``block`` (``incomplete`` for completeness, unless
  ``scoring.on_incomplete: block``), a WARN means ``warn``. Every surface (the CLI's last line
  and exit code, ``--json``, the report, ``POST /evaluate``, the ``audits`` row, the Dagster
  asset check) prints that one value with the rule that set it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, Protocol

from audit_pipeline.records.verdicts import HALLUCINATION_LABELS

Decision = Literal["deploy", "warn", "block"]
Zone = Decision
GateStatus = Literal["pass", "warn", "error"]

ReleaseLevel = Literal["deploy", "warn", "block", "incomplete"]

INCOMPLETE: Final = "incomplete"
# Release decisions from least to most severe. ``incomplete`` is the worst: when too much is
# missing, the other figures are artefacts of what is missing (an unanswered turn fails its
# assertions, so the pass-rate gate "blocks" because the target was down), and a CI job must
# tell "the bot is bad" (block, exit 1) from "the audit could not run" (exit 2).
# See docs/concepts/gates-and-decision.md.
DECISION_ORDER: Final[tuple[ReleaseLevel, ...]] = ("deploy", "warn", "block", INCOMPLETE)
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


class Gate(Protocol):
    """What the release decision reads of a gate (``gates.GateResult``)."""

    @property
    def name(self) -> str: ...
    @property
    def status(self) -> GateStatus: ...
    @property
    def detail(self) -> str: ...
    @property
    def on_error(self) -> ReleaseLevel: ...


@dataclass(frozen=True)
class ReleaseDecision:
    """The one decision every surface prints, and the rule that set it (``gate hallucinations
    1 > 0``); ``str()`` is the form a reader sees: ``block: gate hallucinations 1 > 0``."""

    decision: str  # a ReleaseLevel; str, as stored rows and older outcomes give it back
    rule: str

    def __str__(self) -> str:
        return f"{self.decision}: {self.rule}"


def gate_level(gate: Gate) -> ReleaseLevel:
    """The release decision one gate asks for: pass deploys, WARN warns, ERROR is the gate's
    ``on_error`` (``block``; ``incomplete`` for the completeness gate)."""
    if gate.status == "error":
        return gate.on_error
    return "warn" if gate.status == "warn" else "deploy"


def gate_rule(gate: Gate) -> str:
    """How a gate is named in a rule: ``risk 0.312 > 0.25 (block zone)``, the completeness
    problem itself, else ``gate <name> <detail>``."""
    if gate.name == "completeness":
        return gate.detail
    if gate.name == "risk":
        return f"risk {gate.detail}"
    return f"gate {gate.name} {gate.detail}"


def release_decision(gates: Sequence[Gate]) -> ReleaseDecision:
    """The worst level any gate asks for (``DECISION_ORDER``), named by the first gate that asks
    for it (the gates come in a fixed order: completeness, risk, the counts, waivers). An audit
    every gate passes deploys, and says so with its risk."""
    if not gates:
        return ReleaseDecision("warn", "no gate was evaluated")
    worst = max(gates, key=lambda gate: DECISION_ORDER.index(gate_level(gate)))
    level = gate_level(worst)
    if level != "deploy":
        return ReleaseDecision(level, gate_rule(worst))
    risk = next((gate for gate in gates if gate.name == "risk"), None)
    passed = "every gate passed"
    return ReleaseDecision("deploy", f"{gate_rule(risk)}, {passed}" if risk else passed)


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
