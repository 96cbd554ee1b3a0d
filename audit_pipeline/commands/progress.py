"""Progress a person and a CI log can read: one line per stage, with its counts and the time
it took.

The first audit (minutes of model loading and answering) used to print nothing at all under
``make`` or in CI (a log that looks hung), and on a terminal nothing but the answering bar. So
the CLI prints plain lines, each stamped with the time since the audit began, with or without
a terminal (on one, printed above the answering bar, which stays for the answering):

    [   4.1s] vault_documents done in 3.9s: documents 9, skipped 0
    [  61.0s] responses 23/65
    [ 121.3s] verdicts still running (60s)

The lines come from the run's own Dagster events, read from the instance the run is recorded
in (a thread polls it, so every executor is covered, step processes and cluster workers
included); the answering count comes from the responses step in this process, and a stage that
runs long says so every ``heartbeat_s`` seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from dagster import DagsterEventType, DagsterInstance, RunsFilter

HEARTBEAT_S = 30.0
ANSWERING_EVERY_S = 10.0
MAX_COUNTS = 4
_SKIPPED = {"audit_id", "target", "suite", "suite_hash", "html", "markdown", "open", "path"}


def counts_text(metadata: Mapping[str, Any]) -> str:
    """The first few short figures of a stage's materialisation (``documents 9, skipped 0``),
    numbers rounded; tables, paths and ids are left out."""
    parts = []
    for key, value in metadata.items():
        raw = getattr(value, "value", value)
        if key in _SKIPPED or isinstance(raw, bool):
            continue
        if isinstance(raw, int):
            parts.append(f"{key} {raw}")
        elif isinstance(raw, float) and raw == raw:  # not NaN
            parts.append(f"{key} {raw:.0f}" if abs(raw) >= 100 else f"{key} {raw:.3g}")
        elif isinstance(raw, str) and len(raw) <= 24 and "\n" not in raw:
            parts.append(f"{key} {raw}")
        if len(parts) == MAX_COUNTS:
            break
    return ", ".join(parts)


class StageLines:
    """Writes the progress lines; ``clock`` is injectable so a test can move time."""

    def __init__(
        self,
        out: TextIO,
        clock: Callable[[], float] = time.monotonic,
        heartbeat_s: float = HEARTBEAT_S,
        write: Callable[[str], None] | None = None,
    ) -> None:
        """``write`` prints one line (a progress bar's own writer, which keeps the bar below
        the lines); by default a plain print to ``out``."""
        self.out = out
        self.write = write
        self.clock = clock
        self.heartbeat_s = heartbeat_s
        self.began = clock()
        self.last_line = self.began
        self.running: dict[str, float] = {}  # step -> when it started (this clock)
        self.lock = threading.Lock()
        self._answered_at: float | None = None

    def line(self, text: str) -> None:
        with self.lock:
            now = self.clock()
            self.last_line = now
            stamped = f"[{now - self.began:7.1f}s] {text}"
            if self.write is not None:
                self.write(stamped)
            else:
                print(stamped, file=self.out, flush=True)

    def started(self, step: str) -> None:
        self.running.setdefault(step, self.clock())

    def finished(
        self, step: str, counts: str = "", failed: bool = False, took_s: float | None = None
    ) -> None:
        """``took_s``: the step's own duration (from its events' timestamps), else the time
        since ``started`` on this clock."""
        began = self.running.pop(step, self.clock())
        took = f"{self.clock() - began if took_s is None else took_s:.1f}s"
        if failed:
            self.line(f"{step} failed after {took}")
        else:
            self.line(f"{step} done in {took}" + (f": {counts}" if counts else ""))

    def answering(self, done: int, total: int) -> None:
        """``responses 23/65``, at most every ``ANSWERING_EVERY_S`` seconds, and the last."""
        now = self.clock()
        due = self._answered_at is None or now - self._answered_at >= ANSWERING_EVERY_S
        if total and (due or done == total):
            self._answered_at = now
            self.line(f"responses {done}/{total}")

    def heartbeat(self) -> None:
        """A stage that has printed nothing for ``heartbeat_s`` says it is still running."""
        now = self.clock()
        if not self.running or now - self.last_line < self.heartbeat_s:
            return
        step, began = min(self.running.items(), key=lambda item: item[1])
        self.line(f"{step} still running ({now - began:.0f}s)")


class RunWatcher:
    """Follows the run tagged ``tag`` in ``instance`` (the one the run is recorded in, shared:
    a second instance created at the same time would race the first to create a fresh home's
    tables), and turns its step events into ``StageLines``; ``stop()`` reads what is left and
    ends the thread."""

    def __init__(
        self,
        instance: DagsterInstance,
        tag: tuple[str, str],
        lines: StageLines,
        interval_s: float = 1.0,
    ) -> None:
        self.instance = instance
        self.tag = tag
        self.lines = lines
        self.interval_s = interval_s
        self.run_id: str | None = None
        self.cursor: str | None = None
        self.counts: dict[str, str] = {}
        self.started_at: dict[str, float] = {}  # step -> its STEP_START's timestamp
        self.names: dict[str, str] = {}  # step -> the asset it materialised
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="audit-progress", daemon=True)

    def start(self) -> RunWatcher:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._poll()
        self._poll()

    def _poll(self) -> None:
        runs = self.instance
        try:
            if self.run_id is None:
                found = runs.get_run_records(RunsFilter(tags={self.tag[0]: self.tag[1]}), limit=1)
                if not found:
                    return
                self.run_id = found[0].dagster_run.run_id
            batch = runs.get_records_for_run(self.run_id, cursor=self.cursor)
            self.cursor = batch.cursor
            for record in batch.records:
                entry = record.event_log_entry
                self._event(entry.dagster_event, entry.timestamp)
            self.lines.heartbeat()
        except Exception:  # progress is a courtesy: a busy storage must not end the audit
            return

    def _event(self, event: Any, at: float) -> None:
        if event is None or event.step_key is None:
            return
        step = str(event.step_key)
        kind = event.event_type
        if kind == DagsterEventType.STEP_START:
            self.started_at[step] = at
            self.lines.started(step)
        elif kind == DagsterEventType.ASSET_MATERIALIZATION:
            materialization = event.event_specific_data.materialization
            self.counts[step] = counts_text(materialization.metadata)
            # A batched stage's last step is "verdicts.verdict_writer": name it by its asset.
            self.names[step] = materialization.asset_key.to_user_string()
        elif kind in (DagsterEventType.STEP_SUCCESS, DagsterEventType.STEP_FAILURE):
            took = at - self.started_at.pop(step, at)
            failed = kind == DagsterEventType.STEP_FAILURE
            self.lines.running.pop(step, None)
            if failed or step in self.counts:  # a stage; a check's step is its stage's business
                name = self.names.get(step, step)
                self.lines.finished(name, self.counts.get(step, ""), failed, took)
