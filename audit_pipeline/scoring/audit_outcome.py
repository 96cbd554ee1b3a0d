"""An audit's outcome: the summary, the decision and the gates, as one JSON-able record.

This is what the CLI prints and writes with ``--json``, what the report shows at the top, and
what the asset checks gate on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from audit_pipeline.scoring.audit_summary import AuditSummary
from audit_pipeline.scoring.gates import GateResult
from audit_pipeline.scoring.risk import RiskReport

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

    @property
    def gates_failed(self) -> bool:
        return any(gate.status == "error" for gate in self.gates)

    def to_dict(self) -> dict[str, Any]:
        return {
            "audit_id": self.audit_id,
            "target": self.target,
            "suite": self.suite,
            "decision": self.decision,
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
    decision: str | None = None,
    incomplete: list[str] | None = None,
    waivers: dict[str, Any] | None = None,
    fuzz: dict[str, dict[str, int]] | None = None,
) -> AuditOutcome:
    counts = summary.to_dict()
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
        decision=decision or risk.audit.decision or "warn",
        risk=risk.audit.risk,
        summary={key: counts[key] for key in SUMMARY_KEYS},
        by_category=by_category,
        failures=counts["failures"],
        gates=gates,
        incomplete=list(incomplete or []),
        waivers=waivers,
        fuzz=fuzz,
    )
