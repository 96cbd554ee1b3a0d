"""A Celery cluster on this machine: Debian's ``redis-server`` on 127.0.0.1 as the broker, and
workers of the project's app (``audit_pipeline.defs.celery_workers``), each running one task at
a time. The Celery executor's test and ``benchmarks/scale.py --executor celery`` start theirs
with these.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from audit_pipeline.defs.celery_cluster import BROKER_ENV, QUEUE, celery_app

STARTUP_S = 120.0  # how long the broker and the workers may take to come up


class RedisMissingError(RuntimeError):
    """``redis-server`` is not on PATH."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(ready: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + STARTUP_S
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not come up in {STARTUP_S:.0f} s")
        time.sleep(0.2)


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """A redis-server of its own on a free port of 127.0.0.1, persisting nothing (``folder``
    is its working directory); yields its URL."""
    server = shutil.which("redis-server")
    if server is None:
        raise RedisMissingError(
            "redis-server is not on PATH (Debian: apt-get install redis-server)"
        )
    port = free_port()
    settings = ["--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"]
    process = subprocess.Popen([server, *settings, "--dir", str(folder)], stdout=subprocess.DEVNULL)
    try:
        _wait_for(lambda: _listening(port), "redis-server")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextmanager
def celery_workers(broker: str, count: int) -> Iterator[float]:
    """``count`` workers on ``broker``, one task at a time each; yields the seconds they took
    to start (until every one answers a ping)."""
    environment = {**os.environ, BROKER_ENV: broker}
    environment.pop("DAGSTER_HOME", None)  # steps use the instance the executor names
    started = time.perf_counter()
    workers = [
        subprocess.Popen(
            [
                *(sys.executable, "-m", "celery", "--app", "audit_pipeline.defs.celery_workers"),
                *("worker", "--queues", QUEUE, "--concurrency", "1"),
                *("--hostname", f"audit-{number}@%h", "--loglevel", "WARNING"),
            ],
            env=environment,
            stdout=subprocess.DEVNULL,
        )
        for number in range(count)
    ]
    app = celery_app(broker)
    try:
        _wait_for(lambda: len(app.control.ping(timeout=0.5)) == count, f"{count} Celery workers")
        yield time.perf_counter() - started
    finally:
        app.close()
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=60)
