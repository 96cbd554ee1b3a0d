"""``audit-pipeline diff A B``: what changed between two audits, on the prompts both asked.

Every risk printed has one definition (``scoring/audit_diff.py``): the mean over the prompts
answered in both audits of each prompt's risk, the population the bootstrap interval is
computed over. Numbers are rounded; prompts only one audit asked are listed, not diffed.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from audit_pipeline.commands.preflight import UsageError
from audit_pipeline.config import AuditConfig
from audit_pipeline.runs.history import UnknownAuditError, load_outcome
from audit_pipeline.scoring.audit_diff import AuditDiff, diff_outcomes
from audit_pipeline.scoring.audit_outcome import AuditOutcome
from audit_pipeline.scoring.risk_comparison import RiskChange, bootstrap_risk_change
from audit_pipeline.warehouse.risk_tables import asked_prompts, prompt_risks
from audit_pipeline.warehouse.store import Warehouse

MAX_LISTED = 10


def listed(prompts: Sequence[str], limit: int = MAX_LISTED) -> str:
    """``A, B, C`` (``-`` for none), the first ``limit`` and ``… +N`` for the rest."""
    if not prompts:
        return "-"
    more = f", … +{len(prompts) - limit}" if len(prompts) > limit else ""
    return ", ".join(prompts[:limit]) + more


def _risk(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def scope_notices(before: AuditOutcome, after: AuditOutcome) -> list[str]:
    """What makes two audits less comparable than they look: another target (a different
    system answered), another suite. Said before the figures, never an error: comparing a
    candidate bot with the production one is a fair question."""
    notices = []
    if before.target != after.target:
        notices.append(
            f"note: the audits are of different targets ({before.target} -> {after.target}): "
            "the change compares two systems, not one system over time"
        )
    if before.suite != after.suite:
        notices.append(f"note: the audits ran different suites ({before.suite} -> {after.suite})")
    return notices


def print_diff(diff: AuditDiff, change: RiskChange | None, problem: str | None) -> None:
    before, after = diff.before, diff.after
    print(f"{before.audit_id} -> {after.audit_id}")
    for notice in scope_notices(before, after):
        print(notice)
    print(f"decision {before.release} -> {after.release}")
    print(
        f"prompts asked in both: {len(diff.asked_in_both)}; only in A "
        f"({len(diff.only_before)}): {listed(diff.only_before)}; only in B "
        f"({len(diff.only_after)}): {listed(diff.only_after)}"
    )
    print(
        f"risk change: {change.describe()}"
        if change
        else f"risk change: not measurable ({problem})"
    )
    print(f"new failures ({len(diff.new_failures)}): {listed(diff.new_failures, 50)}")
    print(f"fixed ({len(diff.fixed)}): {listed(diff.fixed, 50)}")
    print(f"still failing ({len(diff.still_failing)}): {listed(diff.still_failing, 50)}")
    if diff.categories:
        print("by category (prompts asked in both; risk as in the risk change):")
    for c in diff.categories:
        print(
            f"  {c.category}: {c.prompts} prompts, failed {c.failed_before} -> {c.failed_after}, "
            f"risk {_risk(c.risk_before)} -> {_risk(c.risk_after)}"
        )


def command(args: argparse.Namespace, config: AuditConfig, warehouse: Warehouse) -> int:
    """Exit 1 with ``--fail-on regression`` when B's risk is significantly higher, else 0."""
    try:
        before = load_outcome(warehouse, args.audit_a, config.gates, config.scoring)
        after = load_outcome(warehouse, args.audit_b, config.gates, config.scoring)
    except UnknownAuditError as error:
        raise UsageError(str(error)) from None
    risks = {a: prompt_risks(warehouse, a) for a in (before.audit_id, after.audit_id)}
    asked = {a: asked_prompts(warehouse, a) for a in (before.audit_id, after.audit_id)}
    diff = diff_outcomes(
        before,
        after,
        asked[before.audit_id],
        asked[after.audit_id],
        risks[before.audit_id],
        risks[after.audit_id],
    )
    change, problem = None, None
    try:
        change = bootstrap_risk_change(
            risks[before.audit_id],
            risks[after.audit_id],
            samples=args.samples,
            confidence=args.confidence,
        )
    except ValueError as error:
        problem = str(error)
    print_diff(diff, change, problem)
    if args.json:
        payload = diff.to_dict()
        payload["notices"] = scope_notices(before, after)
        payload["risk_change"] = change.to_dict() if change is not None else None
        args.json.write_text(json.dumps(payload, indent=2, default=str))
    if args.fail_on == "regression" and change is not None and change.significant_increase:
        print("REGRESSION: the risk increase is significant (--fail-on regression)")
        return 1
    return 0
