"""The breaker's state machine, driven by a fake clock (no sleeps), and under threads."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from audit_pipeline.reliability import (
    BreakerSettings,
    BreakerState,
    CircuitBreaker,
    CircuitOpenError,
)
from audit_pipeline_tests.reliability.clock import FakeClock


class Boom(RuntimeError):
    pass


def ok() -> str:
    return "ok"


def fail() -> str:
    raise Boom("service down")


def _breaker(clock: FakeClock, n: int = 3, t: float = 30.0, m: int = 2) -> CircuitBreaker:
    settings = BreakerSettings(failure_threshold=n, reset_timeout_s=t, success_threshold=m)
    return CircuitBreaker(settings, clock=clock)


def _trip(breaker: CircuitBreaker) -> None:
    for _ in range(breaker.settings.failure_threshold):
        with pytest.raises(Boom):
            breaker.call(fail)


def test_opens_after_n_consecutive_failures_only() -> None:
    breaker = _breaker(FakeClock(), n=3)
    for _ in range(2):
        with pytest.raises(Boom):
            breaker.call(fail)
    assert breaker.call(ok) == "ok"  # a success resets the run of failures
    for _ in range(2):
        with pytest.raises(Boom):
            breaker.call(fail)
    assert breaker.state is BreakerState.CLOSED
    with pytest.raises(Boom):
        breaker.call(fail)
    assert breaker.state is BreakerState.OPEN
    assert breaker.snapshot() == {"state": "open"}


def test_open_breaker_rejects_without_calling() -> None:
    clock = FakeClock()
    breaker = _breaker(clock, t=30.0)
    _trip(breaker)
    calls: list[int] = []
    clock.advance(10)
    for _ in range(4):
        with pytest.raises(CircuitOpenError, match=r"is open: next trial in 20\.0s"):
            breaker.call(calls.append, 1)
    assert calls == []


def test_half_open_after_timeout_then_closed_after_m_successes() -> None:
    clock = FakeClock()
    breaker = _breaker(clock, t=30.0, m=2)
    _trip(breaker)
    clock.advance(29.9)
    assert breaker.state is BreakerState.OPEN
    clock.advance(0.1)
    assert breaker.state is BreakerState.HALF_OPEN
    assert breaker.call(ok) == "ok"
    assert breaker.state is BreakerState.HALF_OPEN  # one success is not enough
    assert breaker.call(ok) == "ok"
    assert breaker.state is BreakerState.CLOSED


def test_failure_in_half_open_reopens_for_a_full_timeout() -> None:
    clock = FakeClock()
    breaker = _breaker(clock, t=30.0, m=2)
    _trip(breaker)
    clock.advance(30)
    assert breaker.call(ok) == "ok"
    with pytest.raises(Boom):
        breaker.call(fail)
    assert breaker.state is BreakerState.OPEN
    clock.advance(29)
    with pytest.raises(CircuitOpenError):
        breaker.call(ok)
    clock.advance(1)
    assert breaker.state is BreakerState.HALF_OPEN


def test_closed_breaker_needs_n_fresh_failures_after_recovery() -> None:
    clock = FakeClock()
    breaker = _breaker(clock, n=2, m=1)
    _trip(breaker)
    clock.advance(30)
    breaker.call(ok)
    assert breaker.state is BreakerState.CLOSED
    with pytest.raises(Boom):
        breaker.call(fail)
    assert breaker.state is BreakerState.CLOSED


def test_one_state_change_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    breaker = _breaker(clock, n=2, m=1)
    with caplog.at_level(logging.WARNING, logger="audit_pipeline.reliability"):
        _trip(breaker)
        for _ in range(50):
            with pytest.raises(CircuitOpenError):
                breaker.call(ok)
        clock.advance(30)
        breaker.call(ok)
    transitions = [(r.from_state, r.to_state) for r in caplog.records]  # type: ignore[attr-defined]
    assert transitions == [("closed", "open"), ("open", "half_open"), ("half_open", "closed")]


def test_half_open_lets_one_trial_through_at_a_time() -> None:
    clock = FakeClock()
    breaker = _breaker(clock, m=1)
    _trip(breaker)
    clock.advance(30)
    entered = threading.Event()
    release = threading.Event()

    def slow_trial() -> str:
        entered.set()
        assert release.wait(10)
        return "recovered"

    with ThreadPoolExecutor(max_workers=1) as pool:
        trial = pool.submit(breaker.call, slow_trial)
        assert entered.wait(10)
        with pytest.raises(CircuitOpenError, match="half_open: a trial call is in flight"):
            breaker.call(ok)  # the trial is still running
        release.set()
        assert trial.result(10) == "recovered"
    assert breaker.state is BreakerState.CLOSED


def test_an_interrupted_trial_counts_as_a_failure() -> None:
    """The trial slot is never left taken: an interrupted trial re-opens the breaker, and the
    next timeout brings the next trial."""
    clock = FakeClock()
    breaker = _breaker(clock, m=1)
    _trip(breaker)
    clock.advance(30)

    def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        breaker.call(interrupted)
    assert breaker.state is BreakerState.OPEN
    clock.advance(30)
    assert breaker.call(ok) == "ok"
    assert breaker.state is BreakerState.CLOSED


def test_a_slow_call_from_before_the_trip_does_not_close_the_breaker() -> None:
    clock = FakeClock()
    breaker = _breaker(clock, n=2)
    entered = threading.Event()
    release = threading.Event()

    def slow_ok() -> str:
        entered.set()
        assert release.wait(10)
        return "late"

    with ThreadPoolExecutor(max_workers=1) as pool:
        late = pool.submit(breaker.call, slow_ok)
        assert entered.wait(10)
        _trip(breaker)
        release.set()
        assert late.result(10) == "late"
    assert breaker.state is BreakerState.OPEN


def test_threads_share_one_breaker_consistently() -> None:
    clock = FakeClock()
    breaker = _breaker(clock, n=3, m=2)
    barrier = threading.Barrier(8)
    made = []  # calls that reached the dependency (list.append is atomic)

    def counted(fn: Callable[[], str]) -> Callable[[], str]:
        def call() -> str:
            made.append(1)
            return fn()

        return call

    def worker(i: int) -> tuple[int, int, int]:
        barrier.wait()
        outcome = [0, 0, 0]  # ok, failed, rejected
        for j in range(200):
            try:
                breaker.call(counted(fail if (i + j) % 20 < 10 else ok))  # outages, recoveries
                outcome[0] += 1
            except Boom:
                outcome[1] += 1
            except CircuitOpenError:
                outcome[2] += 1
            if j % 50 == 49:
                clock.advance(31)  # let an open breaker probe again
        return outcome[0], outcome[1], outcome[2]

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(worker, range(8)))
    oks, fails, rejected = (sum(col) for col in zip(*results, strict=True))
    assert oks + fails + rejected == 8 * 200
    assert len(made) == oks + fails  # a rejected call never reached the dependency
    assert rejected > 0  # it did open under the load, and rejected


def test_rejects_nonsense_thresholds() -> None:
    with pytest.raises(ValueError):
        BreakerSettings(failure_threshold=0)
    with pytest.raises(ValueError):
        BreakerSettings(reset_timeout_s=-1)


def test_breakers_of_one_settings_are_independent() -> None:
    settings = BreakerSettings.model_validate(
        {"failure_threshold": 2, "reset_timeout_s": 5, "success_threshold": 1}
    )
    clock = FakeClock()
    first, second = CircuitBreaker(settings, clock=clock), CircuitBreaker(settings, clock=clock)
    assert second.name == "embeddings"
    _trip(first)
    assert first.state is BreakerState.OPEN and second.state is BreakerState.CLOSED
    clock.advance(5)
    assert first.state is BreakerState.HALF_OPEN
    assert settings.fallback_penalty == 0.2


def test_settings_are_strict() -> None:
    with pytest.raises(ValueError):
        BreakerSettings.model_validate({"failure_treshold": 2})
    with pytest.raises(ValueError):
        BreakerSettings(fallback_penalty=1.5)
    settings = BreakerSettings()
    with pytest.raises(ValueError):
        settings.failure_threshold = 9  # type: ignore[misc]
