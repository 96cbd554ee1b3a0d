"""``audit-pipeline``: the CI gate and batch entry point.

``run`` materialises the same Dagster assets as the UI and the weekly schedule, in-process, so a
CI gate and the scheduled audit can never disagree about what an audit is. Exit codes:
0 = deploy or warn (1 with ``--fail-on warn``), 1 = block or a failed gate, 2 = a configuration
or usage error, an audit that could not complete, or an ``incomplete`` one. Errors are one
``error:`` line on stderr; ``-v`` adds the stack traces and the model-loading progress bars.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit_pipeline.commands import generate_suite, pin, retrieval_eval
from audit_pipeline.commands.preflight import UsageError, check_run
from audit_pipeline.service import serve_commands

if TYPE_CHECKING:  # imported lazily below: the CLI starts without loading the engine
    from tqdm import tqdm

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
    run.add_argument("--repeat", type=int, default=1, help="run the audit N times")
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


def _progress_bar(
    enabled: bool,
) -> tuple[tqdm | None, Callable[[int, int], None] | None]:
    if not enabled:
        return None, None
    from tqdm import tqdm

    bar = tqdm(total=0, unit="turn", desc="answering", file=sys.stderr, leave=False)

    def update(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    return bar, update


def _cmd_run(args: argparse.Namespace) -> int:
    from audit_pipeline.commands.cluster_preflight import DEFAULT_WORKERS, check_executor
    from audit_pipeline.commands.console import (
        print_gates,
        print_outcome,
        print_pipeline_counts,
        print_worst_claims,
    )
    from audit_pipeline.commands.console import worst_claims as load_worst
    from audit_pipeline.commands.run_audit import (
        RunOptions,
        combine_repeats,
        instance,
        real_failure_threshold,
        run_audit,
    )
    from audit_pipeline.commands.run_lock import AuditRunning, check_not_running
    from audit_pipeline.logs import add_json_file_handler
    from audit_pipeline.reports.write import write_outcome_report
    from audit_pipeline.suites.fuzz import parse_transformations
    from audit_pipeline.warehouse.audit_tables import (
        AuditNotResumableError,
        check_resumable,
        unfinished_audit,
    )
    from audit_pipeline.warehouse.store import Warehouse
    from audit_pipeline.warehouse.verdict_tables import judge_usage

    config_path, config = _load(args)
    target, suite = check_run(config, args)
    check_executor(config, args)
    resume = None
    if args.resume:
        if args.repeat > 1:
            raise UsageError("--resume cannot be combined with --repeat")
        resume = (
            unfinished_audit(Warehouse(config.duckdb_path), target)
            if args.resume == "latest"
            else args.resume
        )
        if resume is None:
            raise UsageError(f"no unfinished audit of target {target!r} to resume")
        try:
            check_resumable(Warehouse(config.duckdb_path), resume, target)
            check_not_running(config.duckdb_path, instance(config), resume)
        except (AuditNotResumableError, AuditRunning) as error:
            raise UsageError(str(error)) from None
    options = RunOptions(
        target=target,
        suite=suite,
        categories=args.category,
        ids=args.ids,
        concurrency=args.concurrency,
        use_cache=args.use_cache,
        verbose=args.verbose,
        resume_audit_id=resume,
        fuzz=parse_transformations(args.fuzz),
        processes=args.processes,
        executor=args.executor,
        scheduler=args.scheduler,
        workers=args.workers or DEFAULT_WORKERS,
    )
    log_handler = add_json_file_handler(config.resolve(config.observability.log_file))
    outcomes = []
    report = None
    for attempt in range(args.repeat):
        bar, update = _progress_bar(not args.no_progress and sys.stderr.isatty())
        result = run_audit(config_path, config, options, progress=update)
        if bar is not None:
            bar.close()
        if not result.success or result.outcome is None:
            for message in result.errors:
                print(f"error: {message}", file=sys.stderr)
            log_handler.close()
            return EXIT_USAGE
        outcomes.append(result.outcome)
        report = result.report
        if args.repeat > 1:
            print(f"run {attempt + 1}/{args.repeat}: {result.outcome.decision}", file=sys.stderr)

    outcome = outcomes[-1]
    print_pipeline_counts(result.asset_counts)
    print_outcome(outcome)
    print_worst_claims(load_worst(Warehouse(config.duckdb_path), outcome.audit_id))
    payload: dict[str, Any] = outcome.to_dict()
    verdict_meta = dict(result.asset_counts).get("verdicts") or {}
    payload["verifier"] = {
        "name": verdict_meta.get("verifier"),
        "quality": verdict_meta.get("verifier_quality"),
    }
    vault_meta = dict(result.asset_counts).get("vault_documents") or {}
    payload["vault_skipped"] = vault_meta.get("skipped_files", [])
    claim_meta = dict(result.asset_counts).get("claims") or {}
    payload["claims_cap"] = {
        "max_per_answer": config.detection.max_claims_per_answer,
        "capped_answers": claim_meta.get("capped_answers", 0),
        "dropped": claim_meta.get("capped_claims_dropped", 0),
        "answers": claim_meta.get("capped", []),
    }
    # From the audit row rather than run metadata: a resumed run may not re-run verdicts.
    payload["judge"] = judge_usage(Warehouse(config.duckdb_path), outcome.audit_id)
    decision, gates = outcome.decision, outcome.gates
    if args.repeat > 1:
        asked = Warehouse(config.duckdb_path).query(
            "SELECT DISTINCT prompt_id FROM responses WHERE audit_id = ? ORDER BY prompt_id",
            [outcome.audit_id],
        )
        combined = combine_repeats(
            outcomes,
            args.min_fail or real_failure_threshold(args.repeat),
            list(asked["prompt_id"]),
        )
        decision, gates = combined["decision"], combined["gates"]
        print(
            f"\nOver {args.repeat} runs (real: fails in >= {combined['min_fail']}, "
            "flaky: fails in fewer):"
        )
        for prompt, info in combined["prompts"].items():
            if info["class"] != "pass":
                print(f"  {info['class']:5} {prompt} failed {info['failed_runs']}/{info['runs']}")
        print_gates(gates)
        print(f"\nDECISION over {args.repeat} runs: {decision.upper()}")
        payload["repeats"] = {
            **{k: v for k, v in combined.items() if k != "gates"},
            "gates": [gate.to_dict() for gate in gates],
        }
        payload["decision"] = decision
        payload["gates"] = payload["repeats"]["gates"]
        try:  # the last run's report gets the flakiness table
            report = write_outcome_report(
                Warehouse(config.duckdb_path), outcome, config, repeats=payload["repeats"]
            ).html
        except OSError as error:
            result.warnings.append(f"the report could not be rewritten: {error.strerror}")
    if report is not None:
        print(f"\nreport: {report}")
    for warning in result.warnings:
        print(
            f"warning: {warning} (the audit and its decision are recorded; write the report "
            f"again with: audit-pipeline report {outcome.audit_id})",
            file=sys.stderr,
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2, default=str))
    return _exit_code(decision, gates, args, outcome.audit_id)


def _exit_code(decision: str, gates: Sequence[Any], args: argparse.Namespace, audit_id: str) -> int:
    """2 for an incomplete audit (even with --report-only: nothing was decided); otherwise the
    gates decide, the ``decision`` gate carrying ``gates.block_decision``."""
    if decision == "incomplete":
        print(
            f"error: audit {audit_id} is incomplete: too much could not be answered or "
            "verified to decide (see 'incomplete:' above)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.report_only:
        return EXIT_OK
    if any(gate.status == "error" for gate in gates):
        return EXIT_BLOCKED
    if args.fail_on == "warn" and (
        decision == "warn" or any(gate.status == "warn" for gate in gates)
    ):
        return EXIT_BLOCKED
    return EXIT_OK


def _warehouse(config: AuditConfig) -> Warehouse:
    from audit_pipeline.warehouse.store import Warehouse

    warehouse = Warehouse(config.duckdb_path)
    if not warehouse.path.exists():
        raise UsageError(f"no warehouse at {warehouse.path}: run an audit first")
    return warehouse


def _cmd_report(args: argparse.Namespace) -> int:
    from audit_pipeline.reports.write import write_outcome_report
    from audit_pipeline.scoring.history import UnknownAuditError, load_outcome

    _, config = _load(args)
    warehouse = _warehouse(config)
    try:
        outcome = load_outcome(warehouse, args.audit_id, config.gates)
    except UnknownAuditError as error:
        raise UsageError(str(error)) from None
    paths = write_outcome_report(warehouse, outcome, config)
    print(paths.html)
    print(paths.markdown)
    return EXIT_OK


def _cmd_diff(args: argparse.Namespace) -> int:
    from audit_pipeline.scoring.history import UnknownAuditError, diff_outcomes, load_outcome
    from audit_pipeline.scoring.risk_comparison import bootstrap_risk_change, prompt_risks

    if args.samples < 1 or not 0 < args.confidence < 1:
        raise UsageError("--samples must be at least 1 and --confidence in (0, 1)")
    _, config = _load(args)
    warehouse = _warehouse(config)
    try:
        before = load_outcome(warehouse, args.audit_a, config.gates)
        after = load_outcome(warehouse, args.audit_b, config.gates)
    except UnknownAuditError as error:
        raise UsageError(str(error)) from None
    diff = diff_outcomes(before, after)
    print(f"{before.audit_id} -> {after.audit_id}")
    print(f"decision {before.decision} -> {after.decision}; risk {before.risk} -> {after.risk}")
    print(f"new failures ({len(diff.new_failures)}): {', '.join(diff.new_failures) or '-'}")
    print(f"fixed ({len(diff.fixed)}): {', '.join(diff.fixed) or '-'}")
    print(f"still failing ({len(diff.still_failing)}): {', '.join(diff.still_failing) or '-'}")
    for name, score in diff.score_changes.items():
        print(
            f"  {name}: risk {score['risk_before']} -> {score['risk_after']}, failed "
            f"{score['failed_before']} -> {score['failed_after']}"
        )
    try:
        change = bootstrap_risk_change(
            prompt_risks(warehouse, before.audit_id),
            prompt_risks(warehouse, after.audit_id),
            samples=args.samples,
            confidence=args.confidence,
        )
    except ValueError as error:
        change = None
        print(f"risk change: not measurable ({error})")
    if change is not None:
        print(f"risk change: {change.describe()}")
    significant = change is not None and change.significant_increase
    if args.json:
        payload = diff.to_dict()
        payload["risk_change"] = change.to_dict() if change is not None else None
        args.json.write_text(json.dumps(payload, indent=2, default=str))
    if args.fail_on == "regression" and significant:
        print("REGRESSION: the risk increase is significant (--fail-on regression)")
        return EXIT_BLOCKED
    return EXIT_OK


def _cmd_audits(args: argparse.Namespace) -> int:
    from audit_pipeline.commands.console import table
    from audit_pipeline.warehouse.store import WarehouseError

    _, config = _load(args)
    sql = "SELECT audit_id, target, suite, status, decision, risk, started_at FROM audits"
    params: list[Any] = []
    if args.target:
        sql += " WHERE target = ?"
        params.append(args.target)
    sql += " ORDER BY started_at DESC LIMIT ?"
    params.append(args.limit)
    try:
        rows = _warehouse(config).query(sql, params).to_dict("records")
    except WarehouseError as error:
        raise UsageError(str(error)) from None
    table(
        rows,
        ["audit_id", "target", "suite", "status", "decision", "risk", "started_at"],
        sys.stdout,
    )
    return EXIT_OK


def _cmd_generate_suite(args: argparse.Namespace) -> int:
    config_path, config = _load(args)
    return generate_suite.command(args, config_path, config)


def _cmd_pin(args: argparse.Namespace) -> int:
    _, config = _load(args)
    return pin.command(args, config, _warehouse(config))


def _cmd_retrieval_eval(args: argparse.Namespace) -> int:
    config_path, config = _load(args)
    return retrieval_eval.command(args, config_path, config)


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
    "serve": _cmd_serve,
    "mcp": _cmd_mcp,
}


def _quiet_model_loading() -> None:
    """No progress bars while models load (transformers' "Loading weights", Hugging Face hub
    bars): a CI log or a terminal wants the audit's output, not a bar per model. Set before the
    engine imports transformers, which reads the variable at import; ``-v`` keeps them."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
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
