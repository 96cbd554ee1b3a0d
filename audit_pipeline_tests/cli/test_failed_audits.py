"""A run that ends without a decision leaves its audit ``failed``, never ``running`` for ever
(issue 33, rows 2 and 4): a step that fails, and a SIGTERM (what ``timeout`` and a CI runner's
cancel send) while a Dask cluster works for the run. ``audits`` shows the failure, with no
``nan``; ``--resume`` says what it will redo, and finishes the audit; and no worker process
outlives the command."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.policy_workspace import (
    ANSWERS,
    policy_answer,
    use_http_bot,
    write_policy_workspace,
)
from benchmarks.chat_server import ChatServer, ReceivedRequest, ServerReply

pytestmark = pytest.mark.slow


def _audit_row(config: Path) -> dict:
    [row] = (
        Warehouse(config.parent / "warehouse" / "audit.duckdb")
        .query("SELECT audit_id, status, decision, failed_step, failure FROM audits")
        .to_dict("records")
    )
    return row


@pytest.fixture
def index_lost_while_answering(tmp_path: Path) -> Iterator[tuple[Path, ChatServer]]:
    """A bot whose first answer comes after the vault index was deleted (a disk cleaned up
    under a running audit): the evidence step, which searches it, fails."""
    config = write_policy_workspace(tmp_path / "ws")
    index = tmp_path / "ws" / "warehouse" / "vault.lance"

    def respond(request: ReceivedRequest) -> ServerReply:
        shutil.rmtree(index, ignore_errors=True)
        return policy_answer(request)

    bot = ChatServer(respond).start()
    yield use_http_bot(config, bot.url), bot
    bot.stop()


def test_a_failed_step_fails_the_audit_and_resume_finishes_it(
    index_lost_while_answering: tuple[Path, ChatServer],
) -> None:
    config, bot = index_lost_while_answering
    failed = cli(config, "run", "--no-progress")
    assert failed.returncode == 2, failed.stdout + failed.stderr
    assert "Traceback" not in failed.stderr
    row = _audit_row(config)
    assert row["status"] == "failed"
    assert row["failed_step"].startswith("evidence"), row
    assert row["failure"] and not row["failure"].startswith("audit_pipeline."), row
    assert f"audit {row['audit_id']} is recorded as failed" in failed.stderr
    assert f"audit-pipeline run --resume {row['audit_id']}" in failed.stderr

    listed = cli(config, "audits")
    assert listed.returncode == 0, listed.stderr
    [line] = [text for text in listed.stdout.splitlines() if row["audit_id"] in text]
    assert " failed " in line and " n/a " in line and "failed in evidence" in line
    assert "nan" not in listed.stdout

    resumed = cli(config, "run", "--no-progress", "--resume")
    assert resumed.returncode in (0, 1), resumed.stderr
    notice = f"resuming audit {row['audit_id']}, which failed in {row['failed_step']}: "
    assert notice in resumed.stderr
    assert f"its {len(ANSWERS)} answer(s) come back from the response cache" in resumed.stderr
    assert "redone: claims, evidence, verdicts, assertions and the decision" in resumed.stderr
    finished = _audit_row(config)
    assert (finished["status"], finished["failed_step"]) == ("finished", None)
    assert finished["decision"] in ("deploy", "warn", "block")
    assert bot.count == len(ANSWERS)  # the answers came from the cache: nobody asked twice


def _alive(processes: list[psutil.Process]) -> list[int]:
    alive = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process.pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def test_sigterm_stops_a_dask_run_its_workers_and_fails_the_audit(tmp_path: Path) -> None:
    """SIGTERM while the target holds its answer (a bot that hangs): the CLI ends at once, a
    failed audit behind it, and every process it started (the LocalCluster's workers among
    them) ends with it."""
    held = threading.Event()
    release = threading.Event()

    def respond(request: ReceivedRequest) -> ServerReply:
        held.set()
        release.wait(300)
        return policy_answer(request)

    bot = ChatServer(respond).start()
    config = use_http_bot(write_policy_workspace(tmp_path / "ws"), bot.url, timeout_s=300)
    command = [sys.executable, "-m", "audit_pipeline.cli", "--config", str(config)]
    command += ["run", "--no-progress", "--executor", "dask", "--workers", "1"]
    environment = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
    run = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment
    )
    try:
        assert held.wait(240), "the audit never reached the target"
        started = psutil.Process(run.pid).children(recursive=True)
        assert len(started) >= 2  # the cluster's nanny and worker at least
        run.send_signal(signal.SIGTERM)
        # Generous: the bot holds its answer for 300 s, and the CLI must not wait for it.
        _, stderr = run.communicate(timeout=90)
    finally:
        release.set()
        if run.poll() is None:
            run.kill()
        bot.stop()
    assert run.returncode == 2, stderr
    assert "Traceback" not in stderr
    row = _audit_row(config)
    assert (row["status"], row["failed_step"]) == ("failed", "responses"), row
    assert row["failure"].startswith("stopped by "), row
    assert f"audit {row['audit_id']} is recorded as failed" in stderr
    deadline = time.monotonic() + 30
    while _alive(started) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(started), "processes the CLI started outlived it"
