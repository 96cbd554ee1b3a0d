"""The one retry policy the target runner and the LLM judge share (audit_pipeline/retry.py).

Sleeps are recorded instead of taken, so the backoff schedule is checked without waiting.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from audit_pipeline.retry import MAX_BACKOFF_S, RetryPolicy


class Transient(Exception):
    def __init__(self, message: str = "try again", retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class Permanent(Exception):
    pass


def transient(error: BaseException) -> bool:
    return isinstance(error, Transient)


def failing(*errors: Exception, then: str = "ok") -> tuple[list[int], Callable[[], str]]:
    """A call that raises ``errors`` in turn, then returns ``then``; ``calls`` counts calls."""
    calls: list[int] = []

    def call() -> str:
        calls.append(len(calls) + 1)
        if len(calls) <= len(errors):
            raise errors[len(calls) - 1]
        return then

    return calls, call


def policy(max_retries: int = 3, backoff_base_s: float = 0.5) -> tuple[RetryPolicy, list[float]]:
    sleeps: list[float] = []
    return RetryPolicy(max_retries, backoff_base_s, sleep=sleeps.append), sleeps


def test_a_retryable_error_is_retried_max_retries_times_then_surfaced() -> None:
    retry, sleeps = policy(max_retries=2)
    last = Transient("third time")
    calls, call = failing(Transient(), Transient(), last, Transient())
    with pytest.raises(Transient) as raised:
        retry.call(call, retryable=transient)
    assert raised.value is last  # the last error itself, not a wrapper
    assert len(calls) == 3 and len(sleeps) == 2


def test_a_non_retryable_error_is_not_retried() -> None:
    retry, sleeps = policy()
    calls, call = failing(Permanent("bad request"))
    with pytest.raises(Permanent):
        retry.call(call, retryable=transient)
    assert len(calls) == 1 and sleeps == []


def test_a_retry_can_succeed() -> None:
    retry, sleeps = policy()
    calls, call = failing(Transient(), Transient(), then="answer")
    assert retry.call(call, retryable=transient) == "answer"
    assert len(calls) == 3 and len(sleeps) == 2


def test_zero_retries_means_one_attempt() -> None:
    retry, sleeps = policy(max_retries=0)
    calls, call = failing(Transient())
    outcome = retry.run(call, retryable=transient)
    assert (outcome.attempts, outcome.exhausted, len(calls), sleeps) == (1, True, 1, [])


def test_run_reports_the_attempts_of_every_ending() -> None:
    retry, _ = policy(max_retries=2, backoff_base_s=0)
    ok = retry.run(failing(Transient())[1], retryable=transient)
    assert (ok.value, ok.error, ok.attempts, ok.exhausted) == ("ok", None, 2, False)
    gave_up = retry.run(failing(*[Transient()] * 5)[1], retryable=transient)
    assert (gave_up.value, gave_up.attempts, gave_up.exhausted) == (None, 3, True)
    assert isinstance(gave_up.error, Transient)
    permanent = retry.run(failing(Transient(), Permanent("no"))[1], retryable=transient)
    assert (permanent.attempts, permanent.exhausted) == (2, False)
    assert isinstance(permanent.error, Permanent)


def test_backoff_doubles_with_jitter_and_is_capped() -> None:
    retry, sleeps = policy(max_retries=12, backoff_base_s=0.5)
    with pytest.raises(Transient):
        retry.call(failing(*[Transient()] * 13)[1], retryable=transient)
    assert len(sleeps) == 12
    for attempt, slept in enumerate(sleeps, start=1):
        nominal = min(MAX_BACKOFF_S, 0.5 * 2 ** (attempt - 1))
        assert 0.5 * nominal <= slept <= 1.5 * nominal
    assert max(sleeps) <= 1.5 * MAX_BACKOFF_S


def test_a_retry_after_hint_sets_a_floor_within_the_cap() -> None:
    retry, sleeps = policy(max_retries=2, backoff_base_s=0.01)
    errors = (Transient(retry_after_s=7.0), Transient(retry_after_s=3600.0))
    with pytest.raises(Transient):
        retry.call(failing(*errors, Transient())[1], retryable=transient)
    assert sleeps[0] == 7.0
    assert sleeps[1] == MAX_BACKOFF_S  # a server asking for an hour is not waited an hour


def test_no_backoff_means_no_waiting() -> None:
    retry, sleeps = policy(max_retries=3, backoff_base_s=0)
    with pytest.raises(Transient):
        retry.call(failing(*[Transient()] * 4)[1], retryable=transient)
    assert sleeps == [0.0, 0.0, 0.0]


def test_on_retry_hears_each_failed_attempt_and_its_wait() -> None:
    retry, sleeps = policy(max_retries=2, backoff_base_s=0.1)
    heard: list[tuple[int, str, float]] = []
    retry.call(
        failing(Transient("one"), Transient("two"))[1],
        retryable=transient,
        on_retry=lambda attempt, error, delay: heard.append((attempt, str(error), delay)),
    )
    assert heard == [(1, "one", sleeps[0]), (2, "two", sleeps[1])]


def test_negative_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="must not be negative"):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ValueError, match="must not be negative"):
        RetryPolicy(backoff_base_s=-0.1)
