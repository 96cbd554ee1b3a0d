"""The one retry policy for calls to remote systems: the targets under audit and the LLM judge.

Both kinds of call fail transiently (timeouts, rate limits, 5xx, dropped connections), and an
audit must neither abort on one such failure nor hammer a struggling service. Before this
module each caller had its own loop; now every retry goes through :class:`RetryPolicy`, so
"how many attempts, how long between them" has one answer. The looping itself is tenacity's.

Which errors are transient is the caller's knowledge (a target raises ``RetryableTargetError``,
litellm raises its own types), so the caller passes a ``retryable`` predicate. An error may
carry a server's Retry-After hint as ``retry_after_s`` (seconds); the wait is then at least
that long, within the cap. This module is a leaf: it imports nothing of the pipeline.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

_T = TypeVar("_T")

MAX_BACKOFF_S = 30.0
RetryableCheck = Callable[[BaseException], bool]
# (attempt that failed, counting from 1; its error; seconds until the next attempt)
RetryNotice = Callable[[int, BaseException, float], None]


@dataclass(frozen=True)
class Attempted(Generic[_T]):
    """How a call under :meth:`RetryPolicy.run` ended, with the attempts it took.

    Exactly one of ``value`` and ``error`` is meaningful: ``error`` is None on success.
    ``exhausted`` says the final error was retryable, i.e. the policy gave up on it (audit
    rows word that "gave up after N attempts"); a permanent error is never retried.
    """

    value: _T | None
    error: Exception | None
    attempts: int
    exhausted: bool = False


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` retries after the first attempt, exponential backoff with jitter.

    The n-th retry waits ``backoff_base_s * 2 ** (n - 1)`` seconds, capped at
    ``max_backoff_s``, times a random factor in [0.5, 1.5) so that retries of parallel calls
    do not line up. Tests pass ``backoff_base_s=0`` (no waiting) or their own ``sleep``.
    """

    max_retries: int = 3
    backoff_base_s: float = 0.5
    max_backoff_s: float = MAX_BACKOFF_S
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_retries < 0 or self.backoff_base_s < 0:
            raise ValueError("max_retries and backoff_base_s must not be negative")
        if self.max_backoff_s < 0:
            raise ValueError("max_backoff_s must not be negative")

    @property
    def max_attempts(self) -> int:
        return self.max_retries + 1

    def backoff_s(self, attempt: int, retry_after_s: float | None = None) -> float:
        """Seconds to wait after failed attempt ``attempt`` (1-based) before the next one."""
        # The exponent is bounded only so that a huge attempt number cannot overflow a float.
        delay = min(self.max_backoff_s, self.backoff_base_s * 2.0 ** min(attempt - 1, 64))
        delay *= random.uniform(0.5, 1.5)
        if retry_after_s is not None:
            delay = max(delay, min(retry_after_s, self.max_backoff_s))
        return delay

    def call(
        self,
        fn: Callable[[], _T],
        *,
        retryable: RetryableCheck,
        on_retry: RetryNotice | None = None,
    ) -> _T:
        """``fn()``, retried while it raises a retryable error and attempts are left.

        The last error is re-raised as it was (never wrapped), so callers handle a call that
        gave up exactly as they would handle a single failed call.
        """
        retrying = Retrying(
            sleep=self.sleep,
            stop=stop_after_attempt(self.max_attempts),
            wait=self._wait,
            retry=retry_if_exception(retryable),
            before_sleep=None if on_retry is None else _notify(on_retry),
            reraise=True,
        )
        return retrying(fn)

    def run(
        self,
        fn: Callable[[], _T],
        *,
        retryable: RetryableCheck,
        on_retry: RetryNotice | None = None,
    ) -> Attempted[_T]:
        """Like :meth:`call`, but the outcome (value or error) comes back with its attempts.

        For callers that record how many attempts a call took, failed or not; an error that
        is not an ``Exception`` (KeyboardInterrupt) still propagates.
        """
        attempts = 0

        def counted() -> _T:
            nonlocal attempts
            attempts += 1
            return fn()

        try:
            value = self.call(counted, retryable=retryable, on_retry=on_retry)
        except Exception as error:
            return Attempted(None, error, attempts, exhausted=retryable(error))
        return Attempted(value, None, attempts)

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome is not None else None
        hint = getattr(error, "retry_after_s", None)
        if isinstance(hint, bool) or not isinstance(hint, int | float):
            hint = None
        return self.backoff_s(state.attempt_number, hint)


def _notify(on_retry: RetryNotice) -> Callable[[RetryCallState], None]:
    """Adapt tenacity's before-sleep hook to the plain (attempt, error, delay) callback."""

    def before_sleep(state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome is not None else None
        delay = state.next_action.sleep if state.next_action is not None else None
        if error is not None:
            on_retry(state.attempt_number, error, float(delay or 0.0))

    return before_sleep
