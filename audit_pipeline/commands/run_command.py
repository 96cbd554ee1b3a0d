"""``audit-pipeline run``: audit a target, print what was found, exit by the release decision.

The exit code follows the one release decision (``rules.release_decision``, the worst of the
gates) and nothing else, so the last line a CI log shows, ``--json``, the report and the code
the job exits with can never disagree: 0 deploy (and warn, unless ``--fail-on warn``), 1 block,
2 incomplete (even with ``--report-only``: nothing was decided).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from audit_pipeline.commands.preflight import UsageError, check_run
from audit_pipeline.commands.progress import StageLines
from audit_pipeline.commands.run_audit import RunOptions
from audit_pipeline.scoring.rules import INCOMPLETE, ReleaseDecision

if TYPE_CHECKING:  # imported lazily below: `audit-pipeline --help` loads no engine
    from tqdm import tqdm

    from audit_pipeline.config import AuditConfig

EXIT_OK = 0
EXIT_BLOCKED = 1
EXIT_USAGE = 2


def exit_code(decision: str, fail_on: str, report_only: bool) -> int:
    """2 for an incomplete audit (even with ``--report-only``: nothing was decided); 1 for
    block, and for warn with ``--fail-on warn``; else 0 (always 0 with ``--report-only``)."""
    if decision == INCOMPLETE:
        return EXIT_USAGE
    if report_only:
        return EXIT_OK
    if decision == "block" or (decision == "warn" and fail_on == "warn"):
        return EXIT_BLOCKED
    return EXIT_OK


def exit_now(code: int) -> NoReturn:
    """Leave at once after a stopped run: its cluster is closed and its audit marked failed,
    but a thread may still wait on a target that does not answer, and a normal exit would
    wait for it (up to the target's timeout) before the process could end."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def repeat_options(options: RunOptions, attempt: int, keep_cache: bool) -> RunOptions:
    """The options of run ``attempt`` (0-based) of ``--repeat``: from the second run on, the
    target is asked again (the point of a repeat is a fresh answer; from the cache all N runs
    would be the same answers and "flaky" would mean nothing), unless ``--repeat-cache``."""
    if attempt == 0 or keep_cache or options.use_cache is False:
        return options
    return replace(options, use_cache=False)


def _progress_bar(
    enabled: bool,
) -> tuple[tqdm | None, Callable[[int, int], None] | None]:
    if not enabled:
        return None, None
    from tqdm import tqdm

    bar = tqdm(  # disable=False: TQDM_DISABLE (set without -v) is for the libraries' bars
        total=0, unit="turn", desc="answering", file=sys.stderr, leave=False, disable=False
    )

    def update(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    return bar, update


def _stage_lines(no_progress: bool, bar: tqdm | None) -> StageLines | None:
    """A line per stage, with a terminal or without (``--no-progress``: none). With the bar
    on a terminal the lines go through tqdm's writer, which keeps the bar below them."""
    if no_progress:
        return None
    if bar is None:
        return StageLines(sys.stderr)
    return StageLines(sys.stderr, write=lambda text: bar.write(text, file=sys.stderr))


def planned_turns(config: AuditConfig, suite: str, options: RunOptions) -> int | None:
    """How many turns the audit will ask (its ``--id`` / ``--category`` part, fuzz variants
    included); None when the suite cannot be read here (the audit reports why)."""
    from audit_pipeline.suites.fuzz import fuzz_suite
    from audit_pipeline.suites.loader import load_suite

    try:
        loaded = load_suite(config.suite_path(suite)[1])
        loaded = fuzz_suite(loaded, (*loaded.fuzz, *options.fuzz))
        if options.categories or options.ids:
            loaded = loaded.filter(categories=options.categories or None, ids=options.ids or None)
    except (OSError, ValueError):  # a bad suite or name: the audit itself says what is wrong
        return None
    return sum(len(prompt.turns) for prompt in loaded.prompts)


def command(args: argparse.Namespace, config_path: Path, config: AuditConfig) -> int:
    from audit_pipeline.commands.cluster_preflight import DEFAULT_WORKERS, check_executor
    from audit_pipeline.commands.console import (
        decision_line,
        print_gates,
        print_outcome,
        print_pipeline_counts,
        print_worst_claims,
    )
    from audit_pipeline.commands.console import worst_claims as load_worst
    from audit_pipeline.commands.resume_notice import resume_notice
    from audit_pipeline.commands.run_audit import (
        combine_repeats,
        instance,
        real_failure_threshold,
        run_audit,
    )
    from audit_pipeline.commands.run_lock import AuditRunning, check_not_running
    from audit_pipeline.logs import add_json_file_handler
    from audit_pipeline.reports.write import write_outcome_report
    from audit_pipeline.runs.evidence_changes import EvidenceChanges
    from audit_pipeline.suites.fuzz import parse_transformations
    from audit_pipeline.targets.expected_time import answering_line
    from audit_pipeline.warehouse.audit_tables import (
        AuditNotResumableError,
        check_resumable,
        unfinished_audit,
    )
    from audit_pipeline.warehouse.store import Warehouse
    from audit_pipeline.warehouse.verdict_tables import judge_usage

    target, suite = check_run(config, args)
    cluster = check_executor(config, args)
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
        use_cache = config.cache.use_by_default if args.use_cache is None else args.use_cache
        print(resume_notice(Warehouse(config.duckdb_path), resume, use_cache), file=sys.stderr)
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
        batches=cluster.batches,
    )
    if args.no_progress:  # otherwise the first progress lines say it (below)
        for notice in cluster.notices:
            print(notice, file=sys.stderr)
    turns = None if args.no_progress else planned_turns(config, suite, options)
    announced = None
    if turns is not None:  # before anything runs: what is asked, of whom, for how long
        use_cache = config.cache.use_by_default if options.use_cache is None else options.use_cache
        _, target_config = config.target_config(target)
        announced = answering_line(target, target_config, turns, use_cache)
    log_handler = add_json_file_handler(config.resolve(config.observability.log_file))
    outcomes = []
    report = None
    if args.repeat > 1 and not args.repeat_cache and options.use_cache is not False:
        print(
            f"runs 2-{args.repeat} ask the target again, bypassing the response cache "
            "(--repeat-cache reuses it)",
            file=sys.stderr,
        )
    for attempt in range(args.repeat):
        bar, update = _progress_bar(not args.no_progress and sys.stderr.isatty())
        # A line per stage, terminal or not (make, CI): never a silent log. On a terminal the
        # bar counts the answers; without one, a line does every 10 s.
        stages = _stage_lines(args.no_progress, bar)
        if stages is not None and attempt == 0:
            for notice in cluster.notices:  # a stamped line, as every line of a run is
                stages.line(notice)
        if stages is not None and announced is not None and attempt == 0:
            stages.line(announced)
        run_options = repeat_options(options, attempt, args.repeat_cache)
        result = run_audit(
            config_path,
            config,
            run_options,
            progress=update if bar is not None or stages is None else stages.answering,
            stages=stages,
        )
        if bar is not None:
            bar.close()
        if not result.success or result.outcome is None:
            for message in result.errors:
                print(f"error: {message}", file=sys.stderr)
            for audit_id in result.failed_audits:
                print(
                    f"error: audit {audit_id} is recorded as failed; continue it with: "
                    f"audit-pipeline run --resume {audit_id}",
                    file=sys.stderr,
                )
            log_handler.close()
            if result.stopped:
                exit_now(EXIT_USAGE)
            return EXIT_USAGE
        outcomes.append(result.outcome)
        report = result.report
        if args.repeat > 1:
            print(f"run {attempt + 1}/{args.repeat}: {result.outcome.release}", file=sys.stderr)

    outcome = outcomes[-1]
    print_pipeline_counts(result.asset_counts)
    print_outcome(outcome)
    print_worst_claims(load_worst(Warehouse(config.duckdb_path), outcome.audit_id))
    payload: dict[str, Any] = outcome.to_dict()
    verdict_meta = dict(result.asset_counts).get("verdicts") or {}
    payload["verifier"] = {
        "name": verdict_meta.get("verifier"),
        "quality": verdict_meta.get("verifier_quality"),
        "stages": verdict_meta.get("verifier_stages"),
    }
    payload["suspect_answers"] = verdict_meta.get("suspect_answers", 0)
    payload["marks"] = {
        "set_by_marks": verdict_meta.get("set_by_marks", 0),
        "no_longer_apply": verdict_meta.get("marks_no_longer_apply", 0),
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
    assertion_meta = dict(result.asset_counts).get("assertion_results") or {}
    changed = assertion_meta.get("changed_documents") or {}
    payload["evidence_changed"] = {
        "verdicts": int(assertion_meta.get("evidence_changed", 0)),
        "documents": changed,
    }
    verdicts_changed = int(assertion_meta.get("evidence_changed", 0))
    # From the audit row rather than run metadata: a resumed run may not re-run verdicts.
    payload["judge"] = judge_usage(Warehouse(config.duckdb_path), outcome.audit_id)
    release = outcome.release
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
        release = ReleaseDecision(combined["decision"], combined["rule"])
        print(
            f"\nOver {args.repeat} runs (real: fails in >= {combined['min_fail']}, "
            "flaky: fails in fewer):"
        )
        for prompt, info in combined["prompts"].items():
            if info["class"] != "pass":
                print(f"  {info['class']:5} {prompt} failed {info['failed_runs']}/{info['runs']}")
        print_gates(combined["gates"])
        payload["repeats"] = {
            **{k: v for k, v in combined.items() if k != "gates"},
            "gates": [gate.to_dict() for gate in combined["gates"]],
        }
        payload["decision"], payload["rule"] = release.decision, release.rule
        payload["gates"] = payload["repeats"]["gates"]
        try:  # the last run's report gets the flakiness table
            report = write_outcome_report(
                Warehouse(config.duckdb_path), outcome, config, repeats=payload["repeats"]
            ).html
        except OSError as error:
            result.warnings.append(f"the report could not be rewritten: {error.strerror}")
    if report is not None:
        print(f"\nreport: {report}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2, default=str))
    # The last line of stdout, whatever else was printed: what a CI log is read for.
    print(f"\n{decision_line(release, args.repeat)}")
    if changed:
        print(f"warning: {EvidenceChanges(changed, verdicts_changed).summary()}", file=sys.stderr)
    for warning in result.warnings:
        print(
            f"warning: {warning} (the audit and its decision are recorded; write the report "
            f"again with: audit-pipeline report {outcome.audit_id})",
            file=sys.stderr,
        )
    if release.decision == INCOMPLETE:
        print(
            f"error: audit {outcome.audit_id} is incomplete: too much could not be answered or "
            "verified to decide (see 'incomplete:' above)",
            file=sys.stderr,
        )
    return exit_code(release.decision, args.fail_on, args.report_only)
