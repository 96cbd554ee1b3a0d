"""``audit-pipeline rescore``: apply the analysts' marks to a target's latest audit now and
score it again (gates, decision, report), without calling the target or verifying anything.

It runs the Dagster ``rescore`` job the marks sensor starts, in this process and recorded in
the CLI's instance (the one ``make ui`` shows), so a team without the Dagster daemon gets the
same re-scoring. Every verdict is carried over; the mark stage settles them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from audit_pipeline.commands.preflight import UsageError


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "rescore",
        help="apply new marks to a target's latest audit: gates and report again, no verifying",
    )
    parser.add_argument("--target", help="configured target (default: defaults.target)")


def command(args: argparse.Namespace, config_path: Path, config: Any) -> int:
    from audit_pipeline.commands.console import decision_line, marks_line, print_gates
    from audit_pipeline.commands.run_audit import failures, instance
    from audit_pipeline.config import ConfigError
    from audit_pipeline.defs.automation import CONCURRENCY_TAG
    from audit_pipeline.defs.graph import audit_job

    try:
        target, _ = config.target_config(args.target)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    job = audit_job(str(config_path), "rescore")
    result = job.execute_in_process(
        partition_key=target,
        instance=instance(config),
        raise_on_error=False,
        tags=CONCURRENCY_TAG,
        run_config={"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}},
    )
    if not result.success:
        problems = "; ".join(message for _, message in failures(result)) or "the run failed"
        raise UsageError(f"rescore of target {target!r} failed: {problems}")
    outcome = result.output_for_node("risk_scores")
    events = result.asset_materializations_for_node("verdicts")
    verdicts = {k: v.value for k, v in events[-1].metadata.items()} if events else {}
    print(
        f"re-scored audit {outcome.audit_id} of target {target}: "
        f"{verdicts.get('carried_over', 0)} verdicts carried over, "
        f"{verdicts.get('verified_now', 0)} verified"
    )
    line = marks_line(verdicts)
    if line:
        print(f"marks      {line}")
    print_gates(outcome.gates)
    print(f"\n{decision_line(outcome.release)}")
    return 0
