"""One real audit through ``POST /evaluate`` while the world moves (issue 33, rows 9, 10, 11).

The bot's first call finds the vault edited under the running audit (a policy owner at work)
and holds its answer while a second ``/evaluate`` arrives; one answer is in Arabic. Then:

- row 11: the second request gets 503 with a ``Retry-After`` of the running audit's expected
  remaining time (the audits before it took ten minutes), not a second;
- row 10: the verdicts whose evidence came from the edited document are flagged, the others
  are not;
- row 9: the Arabic answer is counted as unverified, by name, on the completeness gate.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.policy_workspace import (
    policy_answer,
    prompt_id_of,
    use_http_bot,
    write_policy_workspace,
)
from audit_pipeline_tests.service.servers import running_api
from benchmarks.chat_server import ChatServer, ReceivedRequest, ServerReply

pytestmark = pytest.mark.slow


EARLIER_AUDIT_S = 600
ARABIC = "يتم تدوير مفاتيح التشفير تلقائيا كل اثني عشر شهرا."
EDITED = "Customer records are retained for 30 days after the contract ends and then deleted."


@dataclass
class Evaluated:
    busy: httpx.Response
    result: dict[str, Any]
    warehouse: Warehouse


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Evaluated]:
    root = tmp_path_factory.mktemp("honest") / "ws"
    config = write_policy_workspace(root)
    retention = root / "vault" / "retention.md"
    held, release = threading.Event(), threading.Event()

    def respond(request: ReceivedRequest) -> ServerReply:
        if not held.is_set():
            retention.write_text(retention.read_text().replace("90 days", "30 days"))
            held.set()
            release.wait(120)
        if prompt_id_of(request) == "ENC-2":
            return ServerReply(body={"answer": ARABIC})
        return policy_answer(request)

    bot = ChatServer(respond).start()
    use_http_bot(config, bot.url)
    warehouse = Warehouse(root / "warehouse" / "audit.duckdb")
    warehouse.migrate()  # an earlier audit of this configuration, which took ten minutes
    finished = datetime.now(UTC) - timedelta(days=1)
    warehouse.execute(
        "INSERT INTO audits (audit_id, started_at, finished_at, status, target, scope)"
        " VALUES ('earlier', ?, ?, 'finished', 'bot', 'full')",
        [finished - timedelta(seconds=EARLIER_AUDIT_S), finished],
    )
    try:
        with running_api(config) as api, ThreadPoolExecutor(1) as caller:
            first: Future[httpx.Response] = caller.submit(
                httpx.post, f"{api.url}/evaluate", json={}, timeout=900
            )
            assert held.wait(300), "the audit never reached the bot"
            busy = httpx.post(f"{api.url}/evaluate", json={}, timeout=30)
            release.set()
            reply = first.result(timeout=900)
            assert reply.status_code == 200, reply.text
            yield Evaluated(busy, reply.json(), warehouse)
    finally:
        release.set()
        bot.stop()


def test_a_second_evaluate_is_told_the_running_audits_remaining_time(
    evaluated: Evaluated,
) -> None:
    busy = evaluated.busy
    assert busy.status_code == 503
    retry_after = int(busy.headers["Retry-After"])
    # Ten minutes expected, a few seconds gone: not "1", not a fixed minute.
    assert EARLIER_AUDIT_S - 120 <= retry_after <= EARLIER_AUDIT_S
    assert f"expected to finish in about {retry_after}" in busy.json()["detail"]


def test_verdicts_whose_evidence_changed_during_the_audit_are_flagged(
    evaluated: Evaluated,
) -> None:
    details = {d["prompt_id"]: d for d in evaluated.result["details"]}
    assert details["RET-1"]["evidence_changed"] == "retention.md edited during the audit"
    assert all(d["evidence_changed"] is None for p, d in details.items() if p != "RET-1")
    flagged = evaluated.warehouse.query(
        "SELECT v.prompt_id, v.evidence_changed FROM verdicts v JOIN audits a USING (audit_id)"
        " WHERE a.audit_id = ? AND v.evidence_changed IS NOT NULL",
        [evaluated.result["audit_id"]],
    )
    assert list(flagged["prompt_id"]) == ["RET-1"]


def test_an_answer_in_arabic_counts_as_unverified(evaluated: Evaluated) -> None:
    [gate] = [g for g in evaluated.result["gates"] if g["name"] == "completeness"]
    assert gate["status"] == "pass"  # 1 of 5 turns: within scoring.incomplete_share (20 %)
    assert gate["detail"] == (
        "enough answered and verified; 1 of 5 turns answered in a script the claim extractor "
        "does not read, so nothing in them was verified (ENC-2 turn 0 (Arabic))"
    )
    assert "ENC-2" not in {d["prompt_id"] for d in evaluated.result["details"]}  # no claim
