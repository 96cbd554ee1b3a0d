"""An audit's outcome: the summary, the release decision and the gates, as one JSON-able record.

This is what the CLI prints and writes with ``--json``, what the report shows at the top, and
what the asset checks gate on. ``decision`` is the release decision (``rules.release_decision``:
the worst of the gates) and ``rule`` the gate that set it; the risk zone is the ``risk`` gate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from audit_pipeline.scoring.audit_summary import AuditSummary
from audit_pipeline.scoring.gates import GateResult
from audit_pipeline.scoring.risk import RiskReport
from audit_pipeline.scoring.rules import ReleaseDecision, release_decision

SUMMARY_KEYS = (
    "total",
    "passed",
    "failed",
    "pass_rate",
    "assertions_passed",
    "assertions_failed",
    "hallucinations",
    "citation_errors",
    "fallback_errors",
)


@dataclass(frozen=True)
class AuditOutcome:
    audit_id: str
    target: str
    suite: str
    decision: str
    risk: float | None
    summary: dict[str, Any]
    by_category: dict[str, dict[str, Any]]
    failures: list[dict[str, Any]]
    gates: list[GateResult]
    incomplete: list[str] = field(default_factory=list)  # why too little could be checked
    waivers: dict[str, Any] | None = None  # WaiverStatus.to_dict() when waivers are configured
    # Fuzz variants' prompts / passed / failed per transformation, when the suite was fuzzed.
    fuzz: dict[str, dict[str, int]] | None = None
    rule: str = ""  # what set the decision: "gate hallucinations 1 > 0"

    @property
    def gates_failed(self) -> bool:
        return any(gate.status == "error" for gate in self.gates)

    @property
    def release(self) -> ReleaseDecision:
        """The decision with its rule, as every surface prints it (``block: gate ...``)."""
        return ReleaseDecision(self.decision, self.rule)

    def to_dict(self) -> dict[str, Any]:
        return {
            "audit_id": self.audit_id,
            "target": self.target,
            "suite": self.suite,
            "decision": self.decision,
            "rule": self.rule,
            "risk": self.risk,
            "summary": self.summary,
            "by_category": self.by_category,
            "failures": self.failures,
            "gates": [gate.to_dict() for gate in self.gates],
            "incomplete": self.incomplete,
            **({"waivers": self.waivers} if self.waivers is not None else {}),
            **({"fuzz": self.fuzz} if self.fuzz is not None else {}),
        }


def build_outcome(
    *,
    audit_id: str,
    target: str,
    suite: str,
    summary: AuditSummary,
    risk: RiskReport,
    gates: list[GateResult],
    incomplete: list[str] | None = None,
    waivers: dict[str, Any] | None = None,
    fuzz: dict[str, dict[str, int]] | None = None,
) -> AuditOutcome:
    """The outcome of a scored audit; its decision is ``release_decision`` over ``gates``."""
    counts = summary.to_dict()
    release = release_decision(gates)
    categories = sorted(set(counts["by_category"]) | set(risk.by_category))
    by_category = {
        name: {
            "passed": counts["by_category"].get(name, {}).get("passed", 0),
            "failed": counts["by_category"].get(name, {}).get("failed", 0),
            "risk": risk.by_category[name].risk if name in risk.by_category else None,
        }
        for name in categories
    }
    return AuditOutcome(
        audit_id=audit_id,
        target=target,
        suite=suite,
        decision=release.decision,
        rule=release.rule,
        risk=risk.audit.risk,
        summary={key: counts[key] for key in SUMMARY_KEYS},
        by_category=by_category,
        failures=counts["failures"],
        gates=gates,
        incomplete=list(incomplete or []),
        waivers=waivers,
        fuzz=fuzz,
    )
