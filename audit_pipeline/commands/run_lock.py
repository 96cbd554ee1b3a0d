"""Which process is running an audit, so ``run --resume`` never joins a live one.

``--resume`` continues an audit whose process died. Pointed at an audit whose process is still
running, it used to run alongside it, both finishing the same audit. So the process that runs
an audit holds an exclusive lock on a file of its own beside the warehouse
(``runs/<pid>-<random>.lock``, which names its pid, host, start and command) for as long as the
run lasts, and tags the Dagster run with the file's name. The system releases the lock when the
process ends, however it ends (SIGKILL included), so a held lock is a live run: a resume looks
up the run that last worked on the audit, and refuses while that run's lock is held. A resumed
run's lock file is named after the audit, so two resumes of one audit cannot both start.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import socket
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

RUN_OWNER_TAG = "audit-pipeline/run-owner"


class AuditRunning(Exception):
    """The audit is being run by a live process; the message names it."""


def _folder(duckdb_path: Path) -> Path:
    return duckdb_path.parent / "runs"


def resume_lock_name(audit_id: str) -> str:
    """The lock file of a run that resumes ``audit_id`` (one at a time)."""
    return f"resume-{hashlib.sha256(audit_id.encode()).hexdigest()[:16]}.lock"


def running_message(audit_id: str, who: str) -> str:
    return (
        f"audit {audit_id} is still being run by {who}; wait for it to finish, or stop that "
        "process and resume again"
    )


def _describe(owner: dict[str, Any]) -> str:
    return (
        f"process {owner.get('pid', '?')} on {owner.get('host', '?')} (started "
        f"{owner.get('started', '?')}: {owner.get('command', '?')})"
    )


@contextmanager
def owning_run(duckdb_path: Path, name: str | None = None) -> Iterator[str]:
    """Hold the lock file ``name`` (a fresh one by default) while the block runs; yields its
    name, for the Dagster run's ``RUN_OWNER_TAG``. ``AuditRunning`` naming the process when
    another live process holds it."""
    folder = _folder(duckdb_path)
    folder.mkdir(parents=True, exist_ok=True)
    name = name or f"{os.getpid()}-{uuid.uuid4().hex[:8]}.lock"
    path = folder / name
    with path.open("a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            raise AuditRunning(_describe(_owner(handle.read()))) from None
        handle.seek(0)
        handle.truncate()
        owner = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": " ".join(["audit-pipeline", *sys.argv[1:]])[:300],
        }
        handle.write(json.dumps(owner))
        handle.flush()
        try:
            yield name
        finally:
            path.unlink(missing_ok=True)


def _owner(text: str) -> dict[str, Any]:
    with suppress(ValueError):
        owner = json.loads(text)
        if isinstance(owner, dict):
            return owner
    return {}


def live_owner(duckdb_path: Path, name: str) -> str | None:
    """Who holds the lock file ``name`` now (``process 123 on host ...``); None when nobody
    does: the run ended, and a file it left (killed) is removed."""
    path = _folder(duckdb_path) / Path(name).name
    try:
        handle = path.open("r")
    except FileNotFoundError:
        return None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _describe(_owner(handle.read()))
    path.unlink(missing_ok=True)
    return None


def check_not_running(duckdb_path: Path, instance: Any, audit_id: str) -> None:
    """``AuditRunning`` when the process of the run that last worked on ``audit_id`` (the
    audit's ``dagster_run_id``, looked up in ``instance``) is alive."""
    from audit_pipeline.warehouse.store import Warehouse

    run_id = Warehouse(duckdb_path).scalar(
        "SELECT dagster_run_id FROM audits WHERE audit_id = ?", [audit_id]
    )
    run = instance.get_run_by_id(run_id) if run_id else None
    owner = run.tags.get(RUN_OWNER_TAG) if run is not None else None
    alive = live_owner(duckdb_path, owner) if owner else None
    if alive is not None:
        raise AuditRunning(running_message(audit_id, alive))
