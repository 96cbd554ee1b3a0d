"""A circuit breaker: stop calling a dependency that keeps failing, and probe it later.

Without one, an embedding service that is down costs every query a full timeout (and the
client's own retries) before the caller falls back, and those calls add load to a service that
is trying to recover. The breaker counts consecutive failures; after ``failure_threshold`` of
them it *opens* and rejects calls at once (``CircuitOpenError``) so callers go straight to their
fallback. After ``reset_timeout_s`` it turns *half-open* and lets one trial call through at a
time; ``success_threshold`` consecutive successes close it again, and a failure re-opens it for
another full timeout.

It guards one real call path: the query embedding of ``index.retrieval.HybridRetriever``, which
answers from full-text search while the breaker is open. That caller needs ``call``, the
``state`` it reports as a metric, and ``CircuitOpenError``; nothing else is kept. The breaker is
an ordinary object owned by the retriever that uses it (no registry, no global state), and it is
thread-safe because searches run from worker threads. The clock is injectable so tests move time
forward instead of sleeping.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import ParamSpec, TypeVar

from audit_pipeline.reliability.breaker_settings import BreakerSettings

logger = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


class BreakerState(StrEnum):
    """The values are the ``state`` label of the ``circuit_breaker_state`` metric."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitOpenError(RuntimeError):
    """The breaker refused the call without making it; the caller should use its fallback.

    The message says when the next trial call is due: the retriever logs it once when it
    enters fallback mode.
    """


@dataclass(frozen=True)
class _Ticket:
    """An admitted call: the state generation it was admitted in, and whether it is the trial.

    A call admitted before a state change (a slow embedding request still running when the
    breaker opened) must not close or re-open the breaker when it finishes: its outcome says
    nothing about the service *since* the change. Searches run in threads, so this happens.
    """

    generation: int
    trial: bool


class CircuitBreaker:
    """Closed → open after N consecutive failures → half-open after T s → closed after M wins."""

    def __init__(
        self,
        settings: BreakerSettings | None = None,
        name: str = "embeddings",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # The thresholds are validated once, by BreakerSettings (audit.yaml's
        # reliability.embedding_breaker); the breaker only reads them.
        self.settings = settings or BreakerSettings()
        self.name = name
        self._clock = clock
        self._lock = threading.Lock()
        self._state = BreakerState.CLOSED
        self._generation = 0
        self._opened_at = 0.0
        self._consecutive_failures = 0
        self._consecutive_successes = 0
        self._trial_in_flight = False

    @property
    def state(self) -> BreakerState:
        """The current state; an open breaker whose timeout has passed reads as half-open."""
        with self._lock:
            self._refresh()
            return self._state

    def call(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run ``fn`` through the breaker.

        Raises ``CircuitOpenError`` without calling ``fn`` when the breaker is open (or
        half-open with its trial call still running); otherwise returns what ``fn`` returns or
        re-raises what it raised, after recording the outcome. Anything raised counts as a
        failure, an interrupt included (the process is usually ending then; counting it keeps
        the trial slot from staying taken).
        """
        ticket = self._admit()
        succeeded = False
        try:
            result = fn(*args, **kwargs)
            succeeded = True
        finally:
            self._record(ticket, succeeded)
        return result

    def snapshot(self) -> dict[str, str]:
        """The state, for the ``circuit_breaker_state`` metric (the retriever reports it as
        ``breaker_state``; it counts requests, failures and rejections itself)."""
        return {"state": str(self.state)}

    def _admit(self) -> _Ticket:
        with self._lock:
            self._refresh()
            if self._state is BreakerState.CLOSED:
                return _Ticket(self._generation, trial=False)
            if self._state is BreakerState.HALF_OPEN and not self._trial_in_flight:
                self._trial_in_flight = True
                return _Ticket(self._generation, trial=True)
            if self._state is BreakerState.OPEN:
                wait = self._opened_at + self.settings.reset_timeout_s - self._clock()
                due = f"next trial in {max(0.0, wait):.1f}s"
            else:
                due = "a trial call is in flight"
            raise CircuitOpenError(f"circuit {self.name!r} is {self._state}: {due}")

    def _record(self, ticket: _Ticket, success: bool) -> None:
        with self._lock:
            if ticket.generation != self._generation:
                return
            if ticket.trial:
                self._trial_in_flight = False
            if self._state is BreakerState.CLOSED:
                if success:
                    self._consecutive_failures = 0
                else:
                    self._consecutive_failures += 1
                    if self._consecutive_failures >= self.settings.failure_threshold:
                        self._transition(BreakerState.OPEN)
            elif self._state is BreakerState.HALF_OPEN:
                if not success:
                    self._transition(BreakerState.OPEN)
                else:
                    self._consecutive_successes += 1
                    if self._consecutive_successes >= self.settings.success_threshold:
                        self._transition(BreakerState.CLOSED)

    def _refresh(self) -> None:
        """Open → half-open once the timeout has passed. Caller holds the lock."""
        if (
            self._state is BreakerState.OPEN
            and self._clock() - self._opened_at >= self.settings.reset_timeout_s
        ):
            self._transition(BreakerState.HALF_OPEN)

    def _transition(self, new: BreakerState) -> None:
        """Enter ``new`` and log it: one warning per state change, never one per call."""
        old = self._state
        self._state = new
        self._generation += 1
        self._consecutive_failures = 0
        self._consecutive_successes = 0
        self._trial_in_flight = False
        if new is BreakerState.OPEN:
            self._opened_at = self._clock()
        logger.warning(
            "circuit %r: %s -> %s",
            self.name,
            old,
            new,
            extra={"breaker": self.name, "from_state": str(old), "to_state": str(new)},
        )
