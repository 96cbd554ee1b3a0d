"""What changed between two audits, on the prompts both of them asked.

A prompt only one audit asked cannot have been fixed or broken by the other: diffing a
58-prompt audit against a 12-prompt one used to list 24 prompts as "fixed" that B never asked.
So failures and categories are compared over the prompts asked in both (the rest are listed
as only in A or only in B), and every risk in the diff has one definition, the risk change's
(``risk_comparison``): the mean over those prompts, answered in both, of each prompt's risk
(an answer with no checkable claim counts 0). The audits' own recorded risks, means over all
their answers, are a different population and are not mixed in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from audit_pipeline.scoring.audit_outcome import AuditOutcome


@dataclass(frozen=True)
class CategoryChange:
    category: str
    prompts: int  # asked in both
    failed_before: int
    failed_after: int
    risk_before: float | None  # mean prompt risk over those answered in both; None: none
    risk_after: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompts": self.prompts,
            "failed_before": self.failed_before,
            "failed_after": self.failed_after,
            "risk_before": _round(self.risk_before),
            "risk_after": _round(self.risk_after),
        }


@dataclass(frozen=True)
class AuditDiff:
    before: AuditOutcome
    after: AuditOutcome
    asked_in_both: list[str]
    only_before: list[str]
    only_after: list[str]
    new_failures: list[str]
    fixed: list[str]
    still_failing: list[str]
    categories: list[CategoryChange]  # categories with a change, in name order

    def to_dict(self) -> dict[str, Any]:
        return {
            "before": self.before.audit_id,
            "after": self.after.audit_id,
            "decision": {
                "before": self.before.decision,
                "after": self.after.decision,
                "rule_before": self.before.rule,
                "rule_after": self.after.rule,
            },
            "asked_in_both": len(self.asked_in_both),
            "only_in_a": self.only_before,
            "only_in_b": self.only_after,
            "new_failures": self.new_failures,
            "fixed": self.fixed,
            "still_failing": self.still_failing,
            "score_changes": {c.category: c.to_dict() for c in self.categories},
        }


def diff_outcomes(
    before: AuditOutcome,
    after: AuditOutcome,
    asked_before: Mapping[str, str],
    asked_after: Mapping[str, str],
    risks_before: Mapping[str, float],
    risks_after: Mapping[str, float],
) -> AuditDiff:
    """``asked_*``: prompt id -> category of every prompt each audit sent (answered or not);
    ``risks_*``: each answered prompt's risk (``risk_comparison.prompt_risks``)."""
    common = sorted(set(asked_before) & set(asked_after))
    shared = set(common)
    failed_before = {f["prompt_id"] for f in before.failures} & shared
    failed_after = {f["prompt_id"] for f in after.failures} & shared
    categories = []
    for name in sorted({asked_after[p] for p in common}):
        mine = [p for p in common if asked_after[p] == name]
        paired = [p for p in mine if p in risks_before and p in risks_after]
        change = CategoryChange(
            category=name,
            prompts=len(mine),
            failed_before=len(failed_before.intersection(mine)),
            failed_after=len(failed_after.intersection(mine)),
            risk_before=_mean([risks_before[p] for p in paired]),
            risk_after=_mean([risks_after[p] for p in paired]),
        )
        same_risk = _round(change.risk_before) == _round(change.risk_after)
        if not same_risk or change.failed_before != change.failed_after:
            categories.append(change)
    return AuditDiff(
        before=before,
        after=after,
        asked_in_both=common,
        only_before=sorted(set(asked_before) - shared),
        only_after=sorted(set(asked_after) - shared),
        new_failures=sorted(failed_after - failed_before),
        fixed=sorted(failed_before - failed_after),
        still_failing=sorted(failed_before & failed_after),
        categories=categories,
    )


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
