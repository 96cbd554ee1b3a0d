"""A run killed with SIGKILL half-way is completed by ``run --resume``: same audit, every row
once, nothing lost (answers given before the kill come back from the response cache). While
the first run is alive, ``--resume`` refuses and names its process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.helpers import write_audit_config
from benchmarks.chat_server import ChatServer, ReceivedRequest, ServerReply

pytestmark = pytest.mark.slow

IDS = (
    "SOC2-001",
    "SOC2-002",
    "SOC2-003",
    "ISO-001",
    "ISO-002",
    "GDPR-001",
    "GDPR-002",
    "ENC-001",
    "ENC-002",
    "RET-001",
    "AC-001",
    "QST-001",
)
ANSWER = "Encryption keys rotate every 12 months. [source: encryption-standard.md#6. Key Rotation]"


HELD_AFTER = 3  # calls answered before the bot holds the next one (until the gate opens)


@pytest.fixture
def slow_bot() -> Iterator[tuple[ChatServer, threading.Event]]:
    gate = threading.Event()

    def respond(request: ReceivedRequest) -> ServerReply:
        if server.count > HELD_AFTER:
            gate.wait(120)
        return ServerReply(body={"answer": ANSWER}, delay_s=0.3)

    server = ChatServer(respond).start()
    yield server, gate
    gate.set()
    server.stop()


def test_killed_audit_is_resumed_without_duplicates_or_gaps(
    tmp_path: Path, sample_index_dir: Path, slow_bot: tuple[ChatServer, threading.Event]
) -> None:
    bot, gate = slow_bot
    config = write_audit_config(
        tmp_path,
        sample_index_dir,
        targets={
            "bot": {
                "type": "http",
                "url": bot.url,
                "answer_path": "$.answer",
                "concurrency": 1,
                "timeout_s": 120,
            }
        },
        defaults={"suite": "security-questionnaire", "target": "bot"},
    )
    args = ["run", "--no-progress", *[a for i in IDS for a in ("--id", i)]]
    environment = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
    first = subprocess.Popen(
        [sys.executable, "-m", "audit_pipeline.cli", "--config", str(config), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=environment,
        start_new_session=True,
    )
    deadline = time.monotonic() + 180
    while bot.count <= HELD_AFTER:  # a few calls answered, the next one held
        assert first.poll() is None, "the audit ended before it could be killed"
        assert time.monotonic() < deadline, "the audit never reached the target"
        time.sleep(0.05)
    joined = cli(config, *args, "--resume")
    assert first.poll() is None, "the audit ended before the resume was tried"
    assert joined.returncode == 2, joined.stdout + joined.stderr
    assert f"is still being run by process {first.pid} on " in joined.stderr
    assert "wait for it to finish, or stop that process and resume again" in joined.stderr
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(timeout=30)
    gate.set()
    calls_before_kill = bot.count

    warehouse = Warehouse(tmp_path / "warehouse" / "audit.duckdb")
    killed = warehouse.query("SELECT audit_id, status FROM audits")
    assert killed["status"].tolist() == ["running"]
    audit_id = killed["audit_id"].iloc[0]

    resumed = cli(config, *args, "--resume")
    assert resumed.returncode in (0, 1), resumed.stderr
    assert audit_id in resumed.stdout

    audits = warehouse.query("SELECT audit_id, status, decision FROM audits")
    assert audits["audit_id"].tolist() == [audit_id]
    assert audits["status"].tolist() == ["finished"]
    responses = warehouse.query(
        "SELECT prompt_id, turn, from_cache, error FROM responses WHERE audit_id = ?", [audit_id]
    )
    assert sorted(responses["prompt_id"]) == sorted(IDS)  # every turn once: no gap, no twin
    assert responses["error"].isna().all()
    assert responses["from_cache"].sum() >= calls_before_kill - 1  # answers were not lost
    assert bot.count < 2 * len(IDS)  # the resumed run did not ask everything again
    for table in ("claims", "verdicts", "assertion_results", "risk_scores"):
        assert warehouse.scalar(f"SELECT count(*) FROM {table} WHERE audit_id = ?", [audit_id])
