"""Run the audit graph, once or repeatedly, and collect its outcome.

The CLI is a thin shell over this: it runs the ``full_audit`` job the UI and the schedule run,
recorded in the instance the UI reads (``instance``), so a CI gate and the weekly audit judge
identically and every audit shows in the UI under that job. By default every step runs in this
process; with ``processes`` above 1 the job runs under
Dagster's multiprocess executor, which starts a process per step (up to that many at once) and
rebuilds the job in each from the configuration file (``reconstructable_audit_job``), so the
batches of ``detection.batches`` run side by side. With ``executor`` (``dask`` or ``celery``)
the batches run on a cluster's workers instead, and every other step in this process.
"""

from __future__ import annotations

import logging
import math
import os
import re
import tempfile
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from dagster import (
    AssetKey,
    DagsterInstance,
    ExecuteInProcessResult,
    JobExecutionResult,
    execute_job,
)

from audit_pipeline.commands.failed_runs import (
    STOPPED,
    fail_run,
    fail_stopped_run,
    stop_reason,
)
from audit_pipeline.commands.progress import RunWatcher, StageLines
from audit_pipeline.commands.run_lock import (
    RUN_OWNER_TAG,
    AuditRunning,
    owning_run,
    resume_lock_name,
    running_message,
)
from audit_pipeline.commands.stop_signals import StopSignals
from audit_pipeline.config import AuditConfig
from audit_pipeline.defs.graph import audit_job, reconstructable_audit_job
from audit_pipeline.defs.run_storage import RunScopedIOManager
from audit_pipeline.scoring.audit_outcome import AuditOutcome
from audit_pipeline.scoring.gates import GateResult, GateStatus
from audit_pipeline.scoring.rules import release_decision

PROGRESS_LOGGER = "audit_pipeline.progress"
PROGRESS_TAG = "audit_pipeline/progress"  # one per run_audit call: the progress lines find it


@dataclass(frozen=True)
class RunOptions:
    target: str
    suite: str | None = None
    categories: Sequence[str] = ()
    ids: Sequence[str] = ()
    concurrency: int | None = None
    use_cache: bool | None = None
    verbose: bool = False
    resume_audit_id: str | None = None
    fuzz: Sequence[str] = ()
    # Steps run at once, each in its own process; 1 runs the whole audit in this process.
    processes: int = 1
    # "dask" or "celery": the batch steps on a cluster's workers, the rest in this process.
    executor: str | None = None
    scheduler: str | None = None  # dask: a running scheduler, else a LocalCluster of workers
    workers: int = 2
    # Detection batches instead of detection.batches (cluster_preflight: a cluster run of a
    # one-batch configuration is split so the workers get the work); None: as configured.
    batches: int | None = None


# Steps after the decision is committed: their failure loses a file, not the audit.
AFTER_DECISION = ("audit_report", "audit_metrics")


@dataclass
class RunResult:
    """``success`` means a decision was committed. ``warnings`` are failures of the steps that
    only publish it (a read-only reports folder): the audit and its decision still stand."""

    success: bool
    outcome: AuditOutcome | None = None
    report: Path | None = None
    errors: list[str] = field(default_factory=list)
    asset_counts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Audits this run started or resumed and left failed (``audits.status``), to resume.
    failed_audits: list[str] = field(default_factory=list)
    failed_step: str | None = None  # the step that failed first
    stopped: bool = False  # ended by Ctrl-C or SIGTERM/SIGHUP rather than by a failure


class _ProgressHandler(logging.Handler):
    """Forwards the responses asset's progress records to a callback."""

    def __init__(self, callback: Callable[[int, int], None]) -> None:
        super().__init__()
        self.callback = callback

    def emit(self, record: logging.LogRecord) -> None:
        self.callback(getattr(record, "done", 0), getattr(record, "total", 0))


# Imported once by the fork server every step process of a multiprocess run is forked from (named,
# not imported: this process needs none of it before the run).
STEP_PRELOAD = "audit_pipeline.defs.step_processes"

# The instance's settings: the repository's dagster_instance.yaml (a test keeps the two equal),
# written by whichever comes first, the CLI or the Makefile, so the UI and the CLI read one
# instance.
INSTANCE_SETTINGS: dict[str, Any] = {
    # Without this Dagster prints its telemetry banner on every run (and would phone home).
    "telemetry": {"enabled": False},
    # No community sign-up modal on the UI's first visit.
    "nux": {"enabled": False},
    # Audit runs the UI queues write the same index and warehouse: one at a time.
    "run_queue": {
        "max_concurrent_runs": 4,
        "tag_concurrency_limits": [{"key": "audit-pipeline/writer", "limit": 1}],
    },
    # Engine log records (target calls, retries, breaker changes) land in the run logs.
    "python_logs": {"managed_python_loggers": ["audit_pipeline"], "python_log_level": "INFO"},
    # The daemon evaluates freshness policies (the weekly audit's, on risk_scores).
    "freshness": {"enabled": True},
}
AUDIT_JOB = "full_audit"  # what a CLI audit's run is named, in the UI as in the schedule's


def instance(config: AuditConfig) -> DagsterInstance:
    """The Dagster instance a CLI run is recorded in: ``<storage dir>/dagster_home``, next to
    the warehouse, the one ``make ui`` opens (the Makefile's ``DAGSTER_HOME`` is that folder
    for the repository's audit.yaml), so every audit, whoever started it, shows in the UI's
    runs and asset history, live while it runs. ``DAGSTER_HOME`` set elsewhere wins. Created
    on first use with the repository's instance settings (telemetry off, so Dagster prints no
    banner and no "No dagster instance configuration file" warning).
    """
    if os.environ.get("DAGSTER_HOME"):
        return DagsterInstance.get()
    home = config.duckdb_path.parent / "dagster_home"
    settings = home / "dagster.yaml"
    if not settings.exists():  # a file already there is the user's: it is left as it is
        home.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=home, prefix=".dagster-", suffix=".yaml")
        with os.fdopen(handle, "w") as stream:
            yaml.safe_dump(INSTANCE_SETTINGS, stream, sort_keys=False)
        os.replace(temporary, settings)  # two CLIs starting at once both write a whole file
    return DagsterInstance.from_config(str(home))


def _run_config(options: RunOptions) -> dict[str, Any]:
    responses: dict[str, Any] = {
        "categories": list(options.categories),
        "ids": list(options.ids),
    }
    if options.concurrency is not None:
        responses["concurrency"] = options.concurrency
    if options.use_cache is not None:
        responses["use_cache"] = options.use_cache
    if options.resume_audit_id is not None:
        responses["resume_audit_id"] = options.resume_audit_id
    # Without -v a failed step is reported by the CLI in one line: no Dagster stack dump.
    level = "DEBUG" if options.verbose else "CRITICAL"
    config: dict[str, Any] = {
        "ops": {
            "prompt_suite": {"config": {"suite": options.suite, "fuzz": list(options.fuzz)}},
            "responses": {"config": responses},
        },
        "loggers": {"console": {"config": {"log_level": level}}},
    }
    if options.processes > 1:
        multiprocess = {
            "max_concurrent": options.processes,
            # Step processes fork from a server that imported the libraries once.
            "start_method": {"forkserver": {"preload_modules": [STEP_PRELOAD]}},
        }
        config["execution"] = {"config": {"multiprocess": multiprocess}}
    if options.executor == "dask":
        dask = {"scheduler": options.scheduler, "workers": options.workers}
        config["execution"] = {"config": dask}
    elif options.executor == "celery":  # the broker's URL stays in the environment
        from audit_pipeline.defs.celery_cluster import BACKEND_ENV

        backend = {"env": BACKEND_ENV} if os.environ.get(BACKEND_ENV) else None
        config["execution"] = {"config": {"backend": backend}}
    return config


AuditRunResult = ExecuteInProcessResult | JobExecutionResult
INTERRUPTED = "DagsterExecutionInterruptedError"
# "audit_pipeline.verification.reader.ReaderError: " before a message of our own: the message
# says what is wrong, and the module path of its class means nothing to a CI log's reader.
_OWN_CLASS = re.compile(r"^audit_pipeline(?:\.\w+)+: ")
PARTITION_TAG = "dagster/partition"  # how a run launched by execute_job names its partition


def failures(result: AuditRunResult) -> list[tuple[str, str]]:
    """(step key, one-line message) of every failed step."""
    messages = []
    for event in result.all_events:
        if event.is_step_failure and event.step_failure_data.error is not None:
            error = event.step_failure_data.error
            cause = error.cause or error
            text = _OWN_CLASS.sub("", cause.message.strip())
            if INTERRUPTED in f"{cause.cls_name} {text}":  # Dagster's name for Ctrl-C/SIGTERM
                text = STOPPED
            messages.append((str(event.step_key), f"{event.step_key}: {text}"))
    return messages


def run_audit(
    config_path: Path,
    config: AuditConfig,
    options: RunOptions,
    progress: Callable[[int, int], None] | None = None,
    stages: StageLines | None = None,
) -> RunResult:
    """Materialise every asset for one target; the outcome is None when a step failed.

    ``progress`` hears from the responses step only when it runs in this process; ``stages``
    gets a line per step as the run records it (``commands/progress.py``). The run holds its
    lock file (``run_lock``) throughout, so a resume can tell it is alive.
    """
    resume = options.resume_audit_id
    tags = {PROGRESS_TAG: uuid.uuid4().hex}
    runs = instance(config)  # one object: two created at once race to create a fresh home
    watcher = (
        RunWatcher(runs, (PROGRESS_TAG, tags[PROGRESS_TAG]), stages) if stages is not None else None
    )
    stops = StopSignals()
    progress_tag = (PROGRESS_TAG, tags[PROGRESS_TAG])
    try:
        with (
            owning_run(config.duckdb_path, resume and resume_lock_name(resume)) as owner,
            stops.forwarded(),
        ):
            if watcher is not None:
                watcher.start()
            try:
                result = _run_owned(
                    config_path, config, options, progress, {**tags, RUN_OWNER_TAG: owner}, runs
                )
            except BaseException as error:  # Ctrl-C, a forwarded SIGTERM, a crash
                reason = stop_reason(stops, error)
                failed = fail_stopped_run(config, runs, progress_tag, reason)
                if not isinstance(error, KeyboardInterrupt):
                    raise
                return RunResult(False, errors=[reason], failed_audits=failed, stopped=True)
            finally:
                if watcher is not None:
                    watcher.stop()
            if not result.success:
                result.failed_audits = fail_run(
                    config, runs, progress_tag, result.failed_step, result.errors, stops
                )
                result.stopped = bool(stops.received) or any(STOPPED in e for e in result.errors)
            return result
    except AuditRunning as error:
        return RunResult(False, errors=[running_message(resume or "?", str(error))])


def _run_owned(
    config_path: Path,
    config: AuditConfig,
    options: RunOptions,
    progress: Callable[[int, int], None] | None,
    tags: dict[str, str],
    runs: DagsterInstance,
) -> RunResult:
    handler = _ProgressHandler(progress) if progress else None
    logger = logging.getLogger(PROGRESS_LOGGER)
    if handler:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    try:
        if options.processes > 1 or options.executor is not None:
            with execute_job(
                reconstructable_audit_job(
                    config_path, AUDIT_JOB, options.executor, options.batches
                ),
                instance=runs,
                run_config=_run_config(options),
                tags={PARTITION_TAG: options.target, **tags},
            ) as job_result:
                storage = RunScopedIOManager()  # the job's IO manager (resources_from_config)
                return _collect(
                    job_result,
                    lambda asset: storage.stored_value(
                        runs, job_result.run_id, AssetKey(asset), options.target
                    ),
                )
        # The full_audit job itself, not an ad hoc materialisation: the run is named after it
        # (not __ephemeral_asset_job__) and sits with the UI's and the schedule's runs.
        result = audit_job(str(Path(config_path).resolve()), AUDIT_JOB).execute_in_process(
            instance=runs,
            partition_key=options.target,
            run_config=_run_config(options),
            raise_on_error=False,
            tags=tags,
        )
    finally:
        if handler:
            logger.removeHandler(handler)
    return _collect(result, result.asset_value)


def _collect(result: AuditRunResult, value: Callable[[str], Any]) -> RunResult:
    """The outcome, report and step counts of a finished run (failed steps as errors);
    ``value`` reads the value an asset stored in the run."""
    counts = [
        (
            event.materialization.asset_key.to_user_string(),
            {key: value.value for key, value in event.materialization.metadata.items()},
        )
        for event in result.get_asset_materialization_events()
    ]
    failed = failures(result)
    late = [message for step, message in failed if step in AFTER_DECISION]
    if len(late) < len(failed) or not _has(result, "risk_scores"):
        errors = [message for _, message in failed] or _run_failure(result)
        first = next((step for step, _ in failed if step not in AFTER_DECISION), None)
        return RunResult(False, errors=errors, asset_counts=counts, failed_step=first)
    report = value("audit_report") if _has(result, "audit_report") else None
    return RunResult(
        True,
        outcome=value("risk_scores"),
        report=Path(report.html) if report is not None else None,
        asset_counts=counts,
        warnings=late,
    )


def _run_failure(result: AuditRunResult) -> list[str]:
    """The run's own error, when it failed outside every step (a cluster that could not be
    reached)."""
    messages = []
    for event in result.all_events:
        if event.is_run_failure and event.job_failure_data.error is not None:
            error = event.job_failure_data.error
            messages.append((error.cause or error).message.strip())
    return messages


def _has(result: AuditRunResult, asset: str) -> bool:
    return any(
        event.materialization.asset_key.to_user_string() == asset
        for event in result.get_asset_materialization_events()
    )


def kth_largest(values: Sequence[float], k: int) -> float:
    """The value reached or exceeded in at least ``k`` of the runs."""
    ordered = sorted(values, reverse=True)
    return ordered[min(k, len(ordered)) - 1]


_SEVERITY: dict[GateStatus, int] = {"pass": 0, "warn": 1, "error": 2}


def real_failure_threshold(runs: int) -> int:
    """Seed 000's flakiness protocol: a prompt failing in at least 60 % of the runs (3 of 5)
    is a real failure; one failing less often is flaky."""
    return math.ceil(0.6 * runs)


def combine_repeats(
    outcomes: Sequence[AuditOutcome], min_fail: int, prompt_ids: Sequence[str] = ()
) -> dict[str, Any]:
    """Flaky-prompt view of N runs: a prompt or a gate fails only when it fails in at least
    ``min_fail`` of them, except completeness (a run that checked too little leaves nothing to
    outvote); the decision is the release decision over those gates (``rules``), as for one
    run. Every prompt gets its fail count and a class: ``real`` (failed in >= ``min_fail``
    runs), ``flaky`` (failed in fewer) or ``pass`` (never failed); ``prompt_ids`` lists the
    prompts that never failed too."""
    runs = len(outcomes)
    failed_runs: dict[str, int] = {}
    categories: dict[str, str] = {}
    for outcome in outcomes:
        for failure in {f["prompt_id"]: f for f in outcome.failures}.values():
            failed_runs[failure["prompt_id"]] = failed_runs.get(failure["prompt_id"], 0) + 1
            categories[failure["prompt_id"]] = failure["category"]
    total = outcomes[-1].summary["total"]
    failed = sorted(p for p, n in failed_runs.items() if n >= min_fail)
    gates = []
    for index, gate in enumerate(outcomes[-1].gates):
        levels = [_SEVERITY[o.gates[index].status] for o in outcomes]
        level = max(levels) if gate.name == "completeness" else kth_largest(levels, min_fail)
        status = next(s for s, v in _SEVERITY.items() if v == level)
        detail = f"{sum(v > 0 for v in levels)} of {runs} runs outside the limit"
        detail += f" (last run: {gate.detail})"
        gates.append(GateResult(gate.name, status, gate.value, detail, gate.on_error))
    release = release_decision(gates)
    return {
        "runs": runs,
        "min_fail": min_fail,
        "decision": release.decision,
        "rule": release.rule,
        "total": total,
        "failed": len(failed),
        "passed": total - len(failed),
        "pass_rate": (total - len(failed)) / total if total else 0.0,
        "prompts": {
            prompt: {
                "category": categories.get(prompt),
                "failed_runs": n,
                "runs": runs,
                "failed": n >= min_fail,
                "class": "real" if n >= min_fail else "flaky" if n else "pass",
            }
            for prompt, n in sorted({**dict.fromkeys(prompt_ids, 0), **failed_runs}.items())
        },
        "gates": gates,
    }
