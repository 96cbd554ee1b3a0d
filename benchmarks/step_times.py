"""When each step of a Dagster run started and succeeded, read from the instance's event log
(the benchmarks report where a run's time went, step by step)."""

from __future__ import annotations

from dagster import DagsterInstance


def step_spans(instance: DagsterInstance, run_id: str) -> dict[str, tuple[float, float]]:
    """Step key -> (start, success) timestamps of the run's succeeded steps."""
    starts: dict[str, float] = {}
    spans: dict[str, tuple[float, float]] = {}
    for entry in instance.all_logs(run_id):
        event = entry.dagster_event
        if event is None or entry.step_key is None:
            continue
        if event.event_type_value == "STEP_START":
            starts[entry.step_key] = entry.timestamp
        elif event.event_type_value == "STEP_SUCCESS" and entry.step_key in starts:
            spans[entry.step_key] = (starts[entry.step_key], entry.timestamp)
    return spans
