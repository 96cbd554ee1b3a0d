"""A circuit breaker: stop calling a dependency that keeps failing, and probe it later.

Without one, an embedding service that is down costs every query a full timeout before the
caller falls back, and the retries add load to a service that is trying to recover. The breaker
counts consecutive failures; after ``failure_threshold`` of them it *opens* and rejects calls at
once (``CircuitOpenError``) so callers go straight to their fallback. After ``reset_timeout_s``
it turns *half-open* and lets one trial call through at a time; ``success_threshold``
consecutive successes close it again, and a failure re-opens it for another full timeout.

The breaker is an ordinary object owned by whoever builds the component it protects: there is
no registry of breakers (no global state), and two pipelines in one process never trip each
other. It is thread-safe, because retrieval runs from worker threads. The clock is injectable so
tests move time forward instead of sleeping.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ParamSpec, TypeVar

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

    ``retry_after_s`` is how long until the breaker lets a trial call through (0 when it is
    half-open and only waiting for the trial in flight to finish).
    """

    def __init__(self, name: str, state: BreakerState, retry_after_s: float):
        super().__init__(
            f"circuit {name!r} is {state}: call rejected (retry in {retry_after_s:.1f}s)"
        )
        self.name = name
        self.state = state
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class _Ticket:
    """An admitted call: the state generation it was admitted in, and whether it is the trial.

    A call that was admitted before a state change (a slow call still running when the breaker
    opened) only updates the totals when it finishes: its outcome says nothing about the
    dependency *since* the change, so it must not close or re-open the breaker.
    """

    generation: int
    trial: bool


class CircuitBreaker:
    """Closed → open after N consecutive failures → half-open after T s → closed after M wins."""

    def __init__(
        self,
        name: str,
        failure_threshold: int = 3,
        reset_timeout_s: float = 30.0,
        success_threshold: int = 2,
        clock: Callable[[], float] = time.monotonic,
    ):
        if failure_threshold < 1 or success_threshold < 1:
            raise ValueError("failure_threshold and success_threshold must be at least 1")
        if reset_timeout_s < 0:
            raise ValueError("reset_timeout_s must not be negative")
        self.name = name
        self.failure_threshold = failure_threshold
        self.reset_timeout_s = reset_timeout_s
        self.success_threshold = success_threshold
        self._clock = clock
        self._lock = threading.Lock()
        self._state = BreakerState.CLOSED
        self._generation = 0
        self._opened_at = 0.0
        self._consecutive_failures = 0
        self._consecutive_successes = 0
        self._trial_in_flight = False
        self._requests = 0
        self._successes = 0
        self._failures = 0
        self._rejections = 0
        self._state_changes = 0
        self._trips = 0

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
        re-raises what it raised, after recording the outcome. Any ``Exception`` counts as a
        failure; a ``BaseException`` (``KeyboardInterrupt``) frees the trial slot uncounted.
        """
        ticket = self._admit()
        try:
            result = fn(*args, **kwargs)
        except Exception:
            self._record(ticket, success=False)
            raise
        except BaseException:
            self._abandon(ticket)
            raise
        self._record(ticket, success=True)
        return result

    def snapshot(self) -> dict[str, Any]:
        """Counters and state for metrics (``circuit_breaker_*``); totals since construction."""
        with self._lock:
            self._refresh()
            return {
                "name": self.name,
                "state": str(self._state),
                "requests": self._requests,
                "successes": self._successes,
                "failures": self._failures,
                "rejections": self._rejections,
                "state_changes": self._state_changes,
                "trips": self._trips,
                "consecutive_failures": self._consecutive_failures,
            }

    def _admit(self) -> _Ticket:
        with self._lock:
            self._refresh()
            self._requests += 1
            if self._state is BreakerState.CLOSED:
                return _Ticket(self._generation, trial=False)
            if self._state is BreakerState.HALF_OPEN and not self._trial_in_flight:
                self._trial_in_flight = True
                return _Ticket(self._generation, trial=True)
            self._rejections += 1
            retry_after = (
                max(0.0, self._opened_at + self.reset_timeout_s - self._clock())
                if self._state is BreakerState.OPEN
                else 0.0
            )
            raise CircuitOpenError(self.name, self._state, retry_after)

    def _record(self, ticket: _Ticket, success: bool) -> None:
        with self._lock:
            if success:
                self._successes += 1
            else:
                self._failures += 1
            if ticket.generation != self._generation:
                return
            if ticket.trial:
                self._trial_in_flight = False
            if self._state is BreakerState.CLOSED:
                if success:
                    self._consecutive_failures = 0
                else:
                    self._consecutive_failures += 1
                    if self._consecutive_failures >= self.failure_threshold:
                        self._trips += 1
                        self._transition(BreakerState.OPEN)
            elif self._state is BreakerState.HALF_OPEN:
                if not success:
                    self._trips += 1
                    self._transition(BreakerState.OPEN)
                else:
                    self._consecutive_successes += 1
                    if self._consecutive_successes >= self.success_threshold:
                        self._transition(BreakerState.CLOSED)

    def _abandon(self, ticket: _Ticket) -> None:
        with self._lock:
            if ticket.trial and ticket.generation == self._generation:
                self._trial_in_flight = False

    def _refresh(self) -> None:
        """Open → half-open once the timeout has passed. Caller holds the lock."""
        if (
            self._state is BreakerState.OPEN
            and self._clock() - self._opened_at >= self.reset_timeout_s
        ):
            self._transition(BreakerState.HALF_OPEN)

    def _transition(self, new: BreakerState) -> None:
        """Enter ``new`` and log it: one warning per state change, never one per call."""
        old = self._state
        self._state = new
        self._generation += 1
        self._state_changes += 1
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
