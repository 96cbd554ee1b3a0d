"""The worker pool: at most ``workers + queue`` requests in, 503 (``Busy``) beyond with a
Retry-After, and a request that waited out its time budget in the queue never starts."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from audit_pipeline.service.errors import Busy, TimedOut
from audit_pipeline.service.pool import WorkerPool


def test_a_full_pool_refuses_at_once_and_frees_its_places() -> None:
    pool = WorkerPool(workers=1, queue=1, time_budget_s=30)
    release = threading.Event()
    running = pool.submit(lambda _: release.wait(10))
    queued = pool.submit(lambda _: "queued")
    with pytest.raises(Busy) as refused:
        pool.submit(lambda _: "refused")
    assert refused.value.status == 503
    assert int(refused.value.headers()["Retry-After"]) >= 1
    assert pool.admitted == 2
    release.set()
    assert running.result(10) is True
    assert queued.result(10) == "queued"
    assert pool.submit(lambda _: "again").result(10) == "again"
    pool.shutdown()


def test_a_request_past_its_budget_is_answered_and_never_started() -> None:
    pool = WorkerPool(workers=1, queue=1, time_budget_s=0.3)
    release = threading.Event()
    started: list[str] = []
    blocker = pool.submit(lambda _: release.wait(10))

    def late(_: float) -> str:
        started.append("late")
        return "late"

    with pytest.raises(TimedOut, match=r"service\.time_budget_s"):
        asyncio.run(pool.run(late))
    release.set()
    blocker.result(10)
    pool.submit(lambda _: None).result(10)  # everything queued before it has run or gone
    assert started == []
    assert pool.admitted == 0
    pool.shutdown()


def test_work_gets_its_deadline() -> None:
    pool = WorkerPool(workers=2, queue=0, time_budget_s=5)
    before = time.monotonic()
    seen = asyncio.run(pool.run(lambda deadline: deadline))
    assert before + 5 <= seen <= time.monotonic() + 5
    pool.shutdown()
