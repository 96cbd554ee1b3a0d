"""``audit-pipeline``: the CI gate and batch entry point.

``run`` materialises the same Dagster assets as the UI and the weekly schedule, in-process, so a
CI gate and the scheduled audit can never disagree about what an audit is. Exit codes follow
the release decision (``commands/run_command.py``): 0 = deploy or warn (1 with ``--fail-on
warn``), 1 = block (any gate at ERROR), 2 = a configuration or usage error, an audit that could
not complete, or an ``incomplete`` one. Errors are one
``error:`` line on stderr; ``-v`` adds the stack traces and the model-loading progress bars.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from audit_pipeline.commands import (
    calibrate_command,
    generate_suite,
    mark_command,
    pin,
    rescore_command,
    retrieval_eval,
    verifier_command,
)
from audit_pipeline.commands.preflight import UsageError
from audit_pipeline.service import serve_commands

if TYPE_CHECKING:  # imported lazily below: the CLI starts without loading the engine
    from audit_pipeline.config import AuditConfig
    from audit_pipeline.warehouse.store import Warehouse

EXIT_OK = 0
EXIT_BLOCKED = 1
EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="audit-pipeline", description="Batch hallucination audits of LLM chatbots."
    )
    parser.add_argument("--config", type=Path, default=None, help="audit.yaml to use")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="audit a target and gate on the result")
    run.add_argument("--target", help="configured target (default: defaults.target)")
    run.add_argument("--suite", help="configured suite (default: defaults.suite)")
    run.add_argument("--category", action="append", default=[], help="only this category")
    run.add_argument("--id", action="append", default=[], dest="ids", help="only this prompt")
    run.add_argument("--concurrency", type=int, help="target calls in flight at once")
    run.add_argument(
        "--processes",
        type=int,
        default=1,
        metavar="N",
        help="run up to N steps at once, each in its own process (Dagster's multiprocess "
        "executor): the batches of detection.batches side by side (default 1: in this process)",
    )
    run.add_argument(
        "--executor",
        choices=["dask", "celery"],
        help="run the batches of detection.batches on a cluster's workers, every other step "
        "in this process: a Dask cluster (--scheduler, or a local one of --workers processes) "
        "or Celery workers on the broker named by $AUDIT_CELERY_BROKER",
    )
    run.add_argument(
        "--scheduler", metavar="tcp://HOST:PORT", help="with --executor dask: a running scheduler"
    )
    run.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="with --executor dask and no --scheduler: the local cluster's worker processes "
        "(default 2)",
    )
    run.add_argument(
        "--fuzz",
        nargs="?",
        const="all",
        default=None,
        metavar="T1,T2",
        help="add adversarial variants of each prompt: language, authority, poisoning, base64, "
        "homoglyph (default: all)",
    )
    cache = run.add_mutually_exclusive_group()
    cache.add_argument("--no-cache", dest="use_cache", action="store_false", default=None)
    cache.add_argument("--cache", dest="use_cache", action="store_true")
    run.add_argument(
        "--resume",
        nargs="?",
        const="latest",
        metavar="AUDIT_ID",
        help="continue an unfinished audit of the target (default: the latest one)",
    )
    run.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run the audit N times; runs 2..N ask the target again (no response cache)",
    )
    run.add_argument(
        "--repeat-cache",
        action="store_true",
        help="with --repeat: let runs 2..N reuse the response cache (the same answers)",
    )
    run.add_argument(
        "--min-fail",
        type=int,
        default=None,
        help="with --repeat: a prompt is a real failure in >= K runs (default: 60%% of N, "
        "rounded up), flaky below",
    )
    run.add_argument("--fail-on", choices=["block", "warn"], default="block")
    run.add_argument(
        "--report-only",
        action="store_true",
        help="print the decision but exit 0 even on block (demos such as `make audit`); "
        "configuration and pipeline errors still exit 2",
    )
    run.add_argument("--json", type=Path, help="write the summary as JSON here")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("-v", "--verbose", action="store_true", help="show Dagster's step logs")

    report = sub.add_parser("report", help="write the HTML/Markdown report of an audit")
    report.add_argument("audit_id")
    diff = sub.add_parser("diff", help="compare two audits")
    diff.add_argument("audit_a")
    diff.add_argument("audit_b")
    diff.add_argument("--json", type=Path)
    diff.add_argument(
        "--fail-on",
        choices=["regression"],
        help="exit 1 when B's risk is significantly higher than A's (bootstrap over prompts)",
    )
    diff.add_argument("--samples", type=int, default=2000, help="bootstrap resamples")
    diff.add_argument("--confidence", type=float, default=0.95, help="confidence level")
    retrieval_eval.add_parser(sub)
    pin.add_parser(sub)
    generate_suite.add_parser(sub)
    serve_commands.add_parsers(sub)
    verifier_command.add_parser(sub)
    mark_command.add_parser(sub)
    calibrate_command.add_parser(sub)
    rescore_command.add_parser(sub)
    audits = sub.add_parser("audits", help="list audits")
    audits.add_argument("--target")
    audits.add_argument("--limit", type=int, default=20)
    return parser


def _load(args: argparse.Namespace) -> tuple[Path, AuditConfig]:
    from audit_pipeline.config import ConfigError, load_config
    from audit_pipeline.defs.graph import default_config_path

    path = (args.config or default_config_path()).resolve()
    try:
        return path, load_config(path)
    except ConfigError as error:
        raise UsageError(str(error)) from None


def _cmd_run(args: argparse.Namespace) -> int:
    from audit_pipeline.commands import run_command

    config_path, config = _load(args)
    return run_command.command(args, config_path, config)


def _warehouse(config: AuditConfig) -> Warehouse:
    from audit_pipeline.warehouse.store import Warehouse

    warehouse = Warehouse(config.duckdb_path)
    if not warehouse.path.exists():
        raise UsageError(f"no warehouse at {warehouse.path}: run an audit first")
    return warehouse


def _cmd_report(args: argparse.Namespace) -> int:
    from audit_pipeline.reports.write import write_outcome_report
    from audit_pipeline.runs.history import UnknownAuditError, load_outcome

    _, config = _load(args)
    warehouse = _warehouse(config)
    try:
        outcome = load_outcome(warehouse, args.audit_id, config.gates, config.scoring)
    except UnknownAuditError as error:
        raise UsageError(str(error)) from None
    paths = write_outcome_report(warehouse, outcome, config)
    print(paths.html)
    print(paths.markdown)
    return EXIT_OK


def _cmd_diff(args: argparse.Namespace) -> int:
    from audit_pipeline.commands import diff_command

    if args.samples < 1 or not 0 < args.confidence < 1:
        raise UsageError("--samples must be at least 1 and --confidence in (0, 1)")
    _, config = _load(args)
    return diff_command.command(args, config, _warehouse(config))


def _cmd_audits(args: argparse.Namespace) -> int:
    from audit_pipeline.commands.history_commands import audits_command

    _, config = _load(args)
    return audits_command(args, _warehouse(config))


def _cmd_generate_suite(args: argparse.Namespace) -> int:
    config_path, config = _load(args)
    return generate_suite.command(args, config_path, config)


def _cmd_pin(args: argparse.Namespace) -> int:
    _, config = _load(args)
    return pin.command(args, config, _warehouse(config))


def _cmd_retrieval_eval(args: argparse.Namespace) -> int:
    config_path, config = _load(args)
    return retrieval_eval.command(args, config_path, config)


def _cmd_verifier(args: argparse.Namespace) -> int:
    _, config = _load(args)
    return verifier_command.command(args, config)


def _cmd_mark(args: argparse.Namespace) -> int:
    _, config = _load(args)
    warehouse = _warehouse(config)
    warehouse.migrate()  # a warehouse of an older version gets the marks table first
    return mark_command.command(args, config, warehouse)


def _cmd_calibrate(args: argparse.Namespace) -> int:
    _, config = _load(args)
    warehouse = _warehouse(config)
    warehouse.migrate()
    return calibrate_command.command(args, config, warehouse)


def _cmd_rescore(args: argparse.Namespace) -> int:
    config_path, config = _load(args)
    _warehouse(config)
    return rescore_command.command(args, config_path, config)


def _cmd_serve(args: argparse.Namespace) -> int:
    config_path, _ = _load(args)
    return serve_commands.serve_command(args, config_path)


def _cmd_mcp(args: argparse.Namespace) -> int:
    config_path, _ = _load(args)
    return serve_commands.mcp_command(args, config_path)


_COMMANDS = {
    "run": _cmd_run,
    "report": _cmd_report,
    "diff": _cmd_diff,
    "audits": _cmd_audits,
    "retrieval-eval": _cmd_retrieval_eval,
    "pin": _cmd_pin,
    "generate-suite": _cmd_generate_suite,
    "verifier": _cmd_verifier,
    "mark": _cmd_mark,
    "calibrate": _cmd_calibrate,
    "rescore": _cmd_rescore,
    "serve": _cmd_serve,
    "mcp": _cmd_mcp,
}


def _quiet_model_loading() -> None:
    """No progress bars while models load (transformers' "Loading weights", Hugging Face hub
    bars, the "de-quantizing GGUF tensors" bar of the reference bot's model, a plain tqdm that
    only ``TQDM_DISABLE`` reaches): a CI log or a terminal wants the audit's output, not a bar
    per model. Set before the engine imports transformers, which reads the variable at import;
    ``-v`` keeps them. The CLI's own answering bar asks for itself explicitly."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TQDM_DISABLE", "1")
    if "transformers" in sys.modules:  # imported already (main() called in-process)
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if not getattr(args, "verbose", False):
        _quiet_model_loading()
    try:
        return _COMMANDS[args.command](args)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # a CI log gets one line, never a stack dump (-v shows it)
        if getattr(args, "verbose", False):
            traceback.print_exc()
        print(f"error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
