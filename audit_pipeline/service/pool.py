"""Bounded concurrency for the service: a worker pool, a bounded queue, a time budget.

One lock around every validation made each caller wait behind the one before, however long it
took (a 100,000-character answer held every other caller for 200 s). Here ``workers``
requests run at once and ``queue`` more wait their turn; a request beyond that is refused at
once with 503 and a ``Retry-After`` estimated from recent durations, so a flood costs its
senders, not the requests already admitted. Each request has a deadline ``time_budget_s``
after it arrived: the caller gets 504 at the deadline whatever the work is doing, and the work
stops at its next checkpoint (a queued request that is past it never starts).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from audit_pipeline.service.errors import Busy, TimedOut

T = TypeVar("T")

_SMOOTHING = 0.2  # weight of the latest duration in the running mean


class WorkerPool:
    """Runs blocking work (model calls, warehouse writes) off the event loop, boundedly."""

    def __init__(self, workers: int, queue: int, time_budget_s: float) -> None:
        self.workers = workers
        self.capacity = workers + queue
        self.time_budget_s = time_budget_s
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="validate")
        self._lock = threading.Lock()
        self._admitted = 0
        self._mean_s = 1.0  # until a request has been timed

    @property
    def admitted(self) -> int:
        """Requests running or waiting now."""
        with self._lock:
            return self._admitted

    def retry_after_s(self) -> float:
        """About when a place frees up: the queue ahead, worked off ``workers`` at a time."""
        with self._lock:
            return self._mean_s * max(1, self._admitted - self.workers + 1) / self.workers

    def deadline(self) -> float:
        """The deadline of a request arriving now (a ``time.monotonic()`` value)."""
        return time.monotonic() + self.time_budget_s

    def submit(self, work: Callable[[float], T], deadline: float | None = None) -> Future[T]:
        """Admit ``work`` (called with its deadline, a ``time.monotonic()`` value) or raise
        ``Busy`` when ``workers + queue`` requests are already in."""
        deadline = self.deadline() if deadline is None else deadline
        with self._lock:
            if self._admitted >= self.capacity:
                full = True
            else:
                full = False
                self._admitted += 1
        if full:
            raise Busy(
                f"busy: {self.workers} running, {self.capacity - self.workers} waiting "
                "(service.workers, service.queue)",
                self.retry_after_s(),
            )

        def run() -> T:
            if time.monotonic() > deadline:  # waited out its whole budget in the queue
                raise TimedOut(self._timed_out_message())
            started = time.monotonic()
            try:
                return work(deadline)
            finally:
                took = time.monotonic() - started
                with self._lock:
                    self._mean_s += _SMOOTHING * (took - self._mean_s)

        try:
            future = self._executor.submit(run)
        except BaseException:
            self._release(None)
            raise
        future.add_done_callback(self._release)
        return future

    def _release(self, _: Future[T] | None) -> None:
        with self._lock:
            self._admitted -= 1

    def _timed_out_message(self) -> str:
        return f"timed out: not answered within service.time_budget_s ({self.time_budget_s:g} s)"

    async def run(self, work: Callable[[float], T], deadline: float | None = None) -> T:
        """``submit`` and wait for the result until the deadline (``TimedOut`` past it); the
        caller's event loop stays free meanwhile."""
        deadline = self.deadline() if deadline is None else deadline
        return await self.wait(self.submit(work, deadline), deadline)

    async def wait(self, future: Future[T], deadline: float) -> T:
        """The result of ``future``, or ``TimedOut`` once ``deadline`` has passed (a future
        still queued is cancelled then: it will not start)."""
        try:
            return await asyncio.wait_for(
                asyncio.wrap_future(future), max(0.0, deadline - time.monotonic())
            )
        except TimeoutError:
            raise TimedOut(self._timed_out_message()) from None

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
