"""A run that ends without a decision leaves its audit ``failed``, never ``running`` for ever.

A failed step (the reader folder, the broker, a corrupt file), a step that failed on a cluster
worker, Ctrl-C or a forwarded SIGTERM (``stop_signals``): every way a run can end without
committing a decision goes through here, which marks the audit the run started (found by the
run's id in ``audits.dagster_run_id``) as failed with the step and the reason, so ``audits``
says what happened and ``--resume`` can continue it. SIGKILL alone cannot be caught: that audit
stays ``running``, and ``--resume`` knows its process is gone (``run_lock``).
"""

from __future__ import annotations

from collections.abc import Sequence

from dagster import DagsterEventType, DagsterInstance, RunsFilter

from audit_pipeline.commands.stop_signals import StopSignals
from audit_pipeline.config import AuditConfig
from audit_pipeline.warehouse.audit_tables import fail_audits
from audit_pipeline.warehouse.store import Warehouse, WarehouseError

STOPPED = "stopped by a signal (SIGINT or SIGTERM)"
RUN_STEP = "run"  # failed_step of a run that failed outside every step (a cluster unreachable)
_STEP_EVENTS = {
    DagsterEventType.STEP_START,
    DagsterEventType.STEP_SUCCESS,
    DagsterEventType.STEP_FAILURE,
    DagsterEventType.STEP_SKIPPED,
}


def _run_ids(runs: DagsterInstance, tag: tuple[str, str]) -> list[str]:
    return list(runs.get_run_ids(RunsFilter(tags={tag[0]: tag[1]})))


def running_step(runs: DagsterInstance, run_ids: list[str]) -> str | None:
    """The step the run stopped in: the latest that started and did not succeed (still
    running, or failed by the interrupt)."""
    started: dict[str, None] = {}
    for run_id in run_ids:
        for entry in runs.all_logs(run_id, of_type=_STEP_EVENTS):
            event = entry.dagster_event
            if event is None or event.step_key is None:
                continue
            if event.event_type == DagsterEventType.STEP_START:
                started[event.step_key] = None
            elif event.event_type != DagsterEventType.STEP_FAILURE:
                started.pop(event.step_key, None)
    return next(reversed(started), None)


def stop_reason(stops: StopSignals, error: BaseException) -> str:
    """Why a run that raised ended: the stop signal, Ctrl-C, or the error itself."""
    if stops.received:
        return f"stopped by {stops.received}"
    if isinstance(error, KeyboardInterrupt):  # Dagster hands SIGTERM to SIGINT's handler too
        return STOPPED
    return f"{type(error).__name__}: {error}".splitlines()[0]


def _mark(config: AuditConfig, run_ids: list[str], step: str, reason: str) -> list[str]:
    try:
        return fail_audits(
            Warehouse(config.duckdb_path, config.storage.lock_timeout_s), run_ids, step, reason
        )
    except WarehouseError:  # the warehouse itself is what failed: nothing more to record
        return []


def fail_stopped_run(
    config: AuditConfig, runs: DagsterInstance, tag: tuple[str, str], reason: str
) -> list[str]:
    """Mark the audit of a run that raised (stopped, crashed) as failed."""
    run_ids = _run_ids(runs, tag)
    return _mark(config, run_ids, running_step(runs, run_ids) or RUN_STEP, reason)


def fail_run(
    config: AuditConfig,
    runs: DagsterInstance,
    tag: tuple[str, str],
    failed_step: str | None,
    errors: Sequence[str],
    stops: StopSignals,
) -> list[str]:
    """Mark the audit of a run that ended without a decision as failed: the step that failed
    first and its error (``errors``, ``step: message`` lines), or, when a stop signal ended
    it, the step it stopped in."""
    run_ids = _run_ids(runs, tag)
    step = failed_step or running_step(runs, run_ids) or RUN_STEP
    reason = errors[0] if errors else "the run ended without a decision"
    reason = reason.removeprefix(f"{step}: ")
    if stops.received:
        reason = f"stopped by {stops.received}"
    return _mark(config, run_ids, step, reason)
