"""SIGTERM and SIGHUP stop an audit the way Ctrl-C does, so nothing it started outlives it.

Python's default answer to SIGTERM (what ``timeout``, a CI runner's cancel button, systemd and
``kill`` send) and to SIGHUP (a closed terminal) is to die on the spot: no ``finally`` runs, so
a Dask LocalCluster's worker processes were left running (hundreds of them, with
``--workers 1000``) and the audit stayed ``running`` for ever. Dagster already stops a run
cleanly on SIGINT (its executors cancel what they submitted, steps end with an interrupt), so
while an audit runs these two signals are handed to the SIGINT handler in place, and the name
of the signal that arrived is kept for the audit's failure reason.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

FORWARDED = (signal.SIGTERM, signal.SIGHUP)


class StopSignals:
    """Which stop signal arrived while the block ran (``received``, e.g. ``"SIGTERM"``)."""

    def __init__(self) -> None:
        self.received: str | None = None

    def _forward(self, number: int, frame: FrameType | None) -> None:
        self.received = self.received or signal.Signals(number).name
        handler = signal.getsignal(signal.SIGINT)  # Dagster's, while a run executes
        if callable(handler):
            handler(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    @contextmanager
    def forwarded(self) -> Iterator[StopSignals]:
        """Forward SIGTERM and SIGHUP to the SIGINT handler inside the block (main thread
        only: elsewhere, as in a server's worker thread, signals are not this code's)."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        previous = {number: signal.getsignal(number) for number in FORWARDED}
        for number in FORWARDED:
            signal.signal(number, self._forward)
        try:
            yield self
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
