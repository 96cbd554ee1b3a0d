"""End a validation's work at its deadline, wherever in the engine it is.

The budget used to bind only the caller: past ``service.time_budget_s`` the caller got 504 while
the worker thread went on verifying, holding the models, for minutes (six answers of one
100,000-character sentence kept every later validation waiting 6.5 minutes). Checks between the
engine's stages do not help when one stage is the long part (the verifier weighs an answer's
claims together, in one call), and a thread cannot be killed. So the worker is interrupted
instead: at the deadline a timer raises ``WorkStopped`` in the worker thread (CPython's
``PyThreadState_SetAsyncExc``), which takes effect at the thread's next Python instruction
(after the running model call, a second at most), unwinds it like any exception (locks held in
``with`` blocks are released) and frees the worker for the next request.

Only the block under the guard can be interrupted: leaving it disarms the timer and clears an
interruption that was set but not raised yet, so the recording that follows a validation is
never cut.
"""

from __future__ import annotations

import ctypes
import threading
import time
from types import TracebackType

from audit_pipeline.validation.engine import TimeBudgetExceeded


class WorkStopped(TimeBudgetExceeded):
    """Raised inside the worker thread at its deadline (built without arguments: CPython
    instantiates an asynchronous exception itself)."""

    def __init__(self) -> None:
        super().__init__("the validation (stopped at its deadline)")


def _raise_in(thread_id: int, exception: type[BaseException] | None) -> None:
    """Set (or, with None, clear) the exception pending for ``thread_id``."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exception) if exception else None
    )


class DeadlineGuard:
    """``with DeadlineGuard(deadline):`` raises ``WorkStopped`` in this thread once
    ``deadline`` (a ``time.monotonic()`` value) passes inside the block; None never fires."""

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self._lock = threading.Lock()
        self._armed = False
        self._fired = False
        self._thread_id = 0
        self._timer: threading.Timer | None = None

    def _fire(self) -> None:
        with self._lock:
            if self._armed:
                self._fired = True
                _raise_in(self._thread_id, WorkStopped)

    def __enter__(self) -> DeadlineGuard:
        if self.deadline is None:
            return self
        self._thread_id = threading.get_ident()
        self._armed = True
        self._timer = threading.Timer(max(0.0, self.deadline - time.monotonic()), self._fire)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._timer is None:
            return
        self._timer.cancel()
        with self._lock:
            self._armed = False
            if self._fired:  # set but perhaps not raised yet: it must not land after the block
                _raise_in(self._thread_id, None)
