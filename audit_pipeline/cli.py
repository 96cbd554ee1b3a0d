"""``audit-pipeline``: run the audit graph from a shell or a CI job.

The CLI materialises the very same Dagster assets as the UI and the schedule, in-process, so a
CI gate and the weekly audit can never disagree about what an audit is. With ``DAGSTER_HOME``
set (``make audit`` sets it) the runs are recorded in that instance and show up in ``make ui``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dagster import ExecuteInProcessResult

EXIT_OK = 0
EXIT_BLOCKED = 1
EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="audit-pipeline", description="Batch hallucination audits of LLM chatbots."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="materialise the audit graph and print the summary")
    run.add_argument("--config", type=Path, default=None, help="audit configuration (audit.yaml)")
    run.add_argument("--target", default=None, help="configured target (default: defaults.target)")
    run.add_argument("-v", "--verbose", action="store_true", help="show Dagster's step logs")
    return parser


def _run(args: argparse.Namespace) -> int:
    from dagster import DagsterInstance, materialize

    from audit_pipeline.config import ConfigError, load_config
    from audit_pipeline.definitions import build_assets, build_checks, default_config_path
    from audit_pipeline.defs.resources import resources_from_config

    config_path = (args.config or default_config_path()).resolve()
    try:
        config = load_config(config_path)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    instance = (
        DagsterInstance.get() if os.environ.get("DAGSTER_HOME") else DagsterInstance.ephemeral()
    )
    level = "DEBUG" if args.verbose else "WARNING"
    try:
        target, _ = config.target_config(args.target)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    result = materialize(
        [*build_assets(config), *build_checks(config)],
        partition_key=target,
        resources=resources_from_config(str(config_path), config),
        instance=instance,
        run_config={"loggers": {"console": {"config": {"log_level": level}}}},
        raise_on_error=False,
    )
    _print_summary(result)
    return EXIT_OK if result.success else EXIT_BLOCKED


_SUMMARY_KEYS = ("documents", "skipped", "chunks", "embedded", "reused", "deleted")


def _print_summary(result: ExecuteInProcessResult) -> None:
    """Counts per materialised asset, then any failure with its message."""
    for event in result.get_asset_materialization_events():
        materialization = event.materialization
        if materialization is None:
            continue
        counts = ", ".join(
            f"{key} {materialization.metadata[key].value}"
            for key in _SUMMARY_KEYS
            if key in materialization.metadata
        )
        print(f"{materialization.asset_key.to_user_string():<18} {counts}")
    for event in result.all_events:
        if event.is_step_failure and event.step_failure_data.error is not None:
            error = event.step_failure_data.error
            cause = error.cause or error
            print(f"FAILED {event.step_key}: {cause.message.strip()}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "run":
        return _run(args)
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
