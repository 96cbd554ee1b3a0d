"""How long the audit ``POST /evaluate`` is running has left, for the ``Retry-After`` of the
requests it turns away.

Audits run one at a time, and take minutes; a second request used to be told to come back in
one second, and a client that obeys hammers the server for the whole audit. The expected
length of the running audit is what the audits before it took: the median of the latest
finished ones recorded in the warehouse (``HISTORY`` of them, the same configuration's), else
this server's last one, else ``DEFAULT_AUDIT_S``. An audit already past that is expected to
need another tenth of it, at least ``MIN_RETRY_S``.
"""

from __future__ import annotations

import statistics
import threading
import time
from pathlib import Path

HISTORY = 5
DEFAULT_AUDIT_S = 120.0
MIN_RETRY_S = 5.0


def typical_audit_s(config_path: Path) -> float | None:
    """The median length of the latest finished audits (not interactive validations) in the
    warehouse of ``config_path``; None without any (or without a readable warehouse)."""
    from audit_pipeline.config import ConfigError, load_config
    from audit_pipeline.warehouse.store import Warehouse, WarehouseError

    try:
        warehouse = Warehouse(load_config(config_path).duckdb_path)
        if not warehouse.path.exists():
            return None
        frame = warehouse.query(
            "SELECT epoch(finished_at) - epoch(started_at) AS seconds FROM audits"
            " WHERE status = 'finished' AND finished_at IS NOT NULL"
            " AND coalesce(scope, '') <> 'interactive' ORDER BY started_at DESC LIMIT ?",
            [HISTORY],
        )
    except (ConfigError, WarehouseError):
        return None
    seconds = [float(value) for value in frame["seconds"] if value == value and value > 0]
    return statistics.median(seconds) if seconds else None


class AuditClock:
    """The running audit's start and expected length; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._started: float | None = None
        self._expected_s = DEFAULT_AUDIT_S
        self._last_s: float | None = None

    def start(self, config_path: Path) -> None:
        expected = typical_audit_s(config_path) or self._last_s or DEFAULT_AUDIT_S
        with self._lock:
            self._started, self._expected_s = time.monotonic(), expected

    def stop(self) -> None:
        with self._lock:
            if self._started is not None:
                self._last_s = time.monotonic() - self._started
            self._started = None

    def remaining_s(self) -> float:
        """Seconds until the running audit should be done (``MIN_RETRY_S`` at least)."""
        with self._lock:
            if self._started is None:  # about to start: all of it
                return max(MIN_RETRY_S, self._expected_s)
            left = self._expected_s - (time.monotonic() - self._started)
            if left <= 0:  # overrunning: another tenth of its expected length
                left = self._expected_s / 10
            return max(MIN_RETRY_S, left)
