"""Release gates: thresholds on an audit's outcome that make a CI job pass, warn or fail.

The same evaluation backs the Dagster asset checks (ERROR / WARN severities) and the release
decision (``rules.release_decision``, the worst of the gates) that the CLI's exit code follows,
so the UI and a CI pipeline can never disagree about whether an audit passed; the comparisons
themselves are ``rules.count_status``, ``rules.rate_status`` and ``RiskThresholds.zone``. The
risk zone is a gate of its own (``risk``), and so is completeness (``completeness``): each rule
that can set the decision is one gate, named in the decision's rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from audit_pipeline.scoring.rules import (
    GateStatus,
    ReleaseLevel,
    RiskThresholds,
    count_status,
    rate_status,
)


class GateSettings(BaseModel):
    """The ``gates:`` section of audit.yaml. Counts fail when they exceed the limit; the pass
    rate fails when it falls below."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    block_decision: Literal["error", "warn"] = "error"
    hallucinations_error: int = Field(default=0, ge=0)
    citation_errors_warn: int = Field(default=0, ge=0)
    citation_errors_error: int = Field(default=3, ge=0)
    pass_rate_warn: float = Field(default=0.95, ge=0, le=1)
    pass_rate_error: float = Field(default=0.85, ge=0, le=1)
    fallback_errors_warn: int = Field(default=0, ge=0)
    fallback_errors_error: int = Field(default=2, ge=0)

    @model_validator(mode="after")
    def _every_level_reachable(self) -> GateSettings:
        """A warn limit at or beyond its error limit, or a pass-rate limit of 0, leaves a level
        that can never be reached: the gate would pass what its author meant to flag."""
        problems = []
        for name in ("citation_errors", "fallback_errors"):
            warn, error = getattr(self, f"{name}_warn"), getattr(self, f"{name}_error")
            if warn >= error:
                problems.append(
                    f"{name}_warn ({warn}) must be below {name}_error ({error}): a count above "
                    "the warn limit would always be an error, so WARN could never show"
                )
        if self.pass_rate_error >= self.pass_rate_warn:
            problems.append(
                f"pass_rate_error ({self.pass_rate_error}) must be below pass_rate_warn "
                f"({self.pass_rate_warn}): otherwise the pass_rate gate can never warn"
            )
        if self.pass_rate_error <= 0:
            problems.append(
                "pass_rate_error must be above 0: no pass rate is below 0, so the pass_rate "
                "gate could never fail"
            )
        if problems:
            raise ValueError("; ".join(problems))
        return self


@dataclass(frozen=True)
class GateResult:
    name: str
    status: GateStatus
    value: float | str
    detail: str
    on_error: ReleaseLevel = "block"  # the release decision an ERROR of this gate means

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _count_gate(name: str, value: int, warn: int | None, error: int) -> GateResult:
    status = count_status(value, warn, error)
    if status == "error":
        return GateResult(name, status, value, f"{value} > {error}")
    if status == "warn":
        return GateResult(name, status, value, f"{value} > {warn}")
    return GateResult(name, status, value, f"{value} within limit {error}")


def risk_gate(risk: float | None, thresholds: RiskThresholds, block: GateStatus) -> GateResult:
    """The risk zone as a gate: deploy passes, warn warns, block is ``block`` (ERROR, or WARN
    with ``gates.block_decision: warn``); an unknown risk warns (nothing could be checked)."""
    zone = thresholds.zone(risk)
    if risk is None or zone is None:
        return GateResult("risk", "warn", "n/a", "unknown: no claim could be verified")
    value = round(risk, 4)
    if zone == "deploy":
        return GateResult("risk", "pass", value, f"{risk:.3f} ≤ {thresholds.deploy_max_risk:.2f}")
    if zone == "warn":
        detail = f"{risk:.3f} > {thresholds.deploy_max_risk:.2f} (warn zone)"
        return GateResult("risk", "warn", value, detail)
    detail = f"{risk:.3f} > {thresholds.warn_max_risk:.2f} (block zone)"
    return GateResult("risk", block, value, detail)


def evaluate_gates(
    summary: Mapping[str, Any],
    settings: GateSettings,
    *,
    risk: float | None,
    thresholds: RiskThresholds,
    incomplete: Sequence[str] = (),
    on_incomplete: ReleaseLevel = "incomplete",
    waivers: Mapping[str, Any] | None = None,
    unchecked: Sequence[str] = (),
) -> list[GateResult]:
    """All gates for one audit, in a fixed order (the order names the release decision's rule
    on a tie). ``incomplete`` says why the audit could not check enough
    (scoring/completeness.py): the completeness gate fails, meaning ``on_incomplete``.
    ``waivers`` (``WaiverStatus.to_dict()``, when a waivers file is configured) adds the
    ``waivers`` gate, an error while any waiver has expired. ``unchecked`` is what a complete
    enough audit still left unverified (``Completeness.notes``): the passing gate says it."""
    if incomplete:
        checked = GateResult(
            "completeness", "error", "incomplete", "; ".join(incomplete), on_incomplete
        )
    else:
        detail = "; ".join(["enough answered and verified", *unchecked])
        checked = GateResult("completeness", "pass", "complete", detail)
    rate = float(summary["pass_rate"])
    rate_level = rate_status(rate, settings.pass_rate_warn, settings.pass_rate_error)
    limit = {"error": settings.pass_rate_error, "warn": settings.pass_rate_warn}.get(rate_level)
    rate_gate = GateResult(
        "pass_rate",
        rate_level,
        round(rate, 4),
        f"{rate:.1%}" if limit is None else f"{rate:.1%} < {limit:.0%}",
    )
    gates = [
        checked,
        risk_gate(risk, thresholds, settings.block_decision),
        _count_gate(
            "hallucinations", int(summary["hallucinations"]), None, settings.hallucinations_error
        ),
        _count_gate(
            "citation_errors",
            int(summary["citation_errors"]),
            settings.citation_errors_warn,
            settings.citation_errors_error,
        ),
        rate_gate,
        _count_gate(
            "fallback_errors",
            int(summary["fallback_errors"]),
            settings.fallback_errors_warn,
            settings.fallback_errors_error,
        ),
    ]
    if waivers is not None:
        expired = list(waivers.get("expired", []))
        applied = len(waivers.get("applied", []))
        if expired:
            gates.append(
                GateResult(
                    "waivers", "error", len(expired), f"expired waiver(s): {'; '.join(expired)}"
                )
            )
        else:
            gates.append(
                GateResult(
                    "waivers",
                    "pass",
                    0,
                    f"{waivers.get('active', 0)} active waiver(s), {applied} failure(s) waived",
                )
            )
    return gates
