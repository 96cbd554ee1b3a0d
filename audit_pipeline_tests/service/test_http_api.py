"""The HTTP API served by real uvicorn on 127.0.0.1, called over real HTTP."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.helpers import write_audit_config
from audit_pipeline_tests.service.servers import running_api
from audit_pipeline_tests.validation.sample_sources import BACKUP_SOURCES

_WAREHOUSES: dict[str, Path] = {}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory, sample_index_dir: Path) -> Iterator[str]:
    root = tmp_path_factory.mktemp("api")
    config = write_audit_config(root, sample_index_dir)
    (root / "broken.yaml").write_text("vault: [unclosed\n")
    with running_api(config) as running:
        _WAREHOUSES[running.url] = root / "warehouse" / "audit.duckdb"
        yield running.url


def test_health(api: str) -> None:
    reply = httpx.get(f"{api}/health")
    assert reply.status_code == 200
    assert reply.json() == {"status": "ok"}


def test_validate_with_sources_flags_a_changed_number(api: str, tmp_path: Path) -> None:
    answer = "Point-in-time recovery is possible to any moment in the last 30 days."
    reply = httpx.post(
        f"{api}/validate",
        json={
            "question": "How far back can we recover?",
            "answer": answer,
            "sources": BACKUP_SOURCES,
        },
        timeout=120,
    )
    assert reply.status_code == 200, reply.text
    body = reply.json()
    [claim] = body["claims"]
    assert {"text", "start", "end", "label", "probability"} <= set(claim)
    assert claim["label"] == "contradicted"
    assert answer[claim["start"] : claim["end"]] == claim["text"]
    assert body["recommendation"] == "reject"
    assert "-interactive-" in body["audit_id"]


def test_validate_without_sources_searches_the_vault_and_is_recorded(api: str) -> None:
    reply = httpx.post(
        f"{api}/validate",
        json={
            "question": "What does TLS require?",
            "answer": "All external connections must use TLS 1.2 or higher.",
        },
        timeout=120,
    )
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["claims"][0]["provenance"][0]["source"] == "vault"
    assert body["claims"][0]["provenance"][0]["document"].endswith(".md")
    store = Warehouse(_WAREHOUSES[api])
    row = store.query(
        "SELECT a.target, a.status, v.confidence FROM audits a"
        " JOIN response_validations v USING (audit_id) WHERE audit_id = ?",
        [body["audit_id"]],
    )
    assert list(row["target"]) == ["interactive"]
    assert list(row["status"]) == ["finished"]
    assert row["confidence"].iloc[0] == pytest.approx(body["confidence"])


@pytest.mark.parametrize(
    "body",
    [
        {"answer": "x"},
        {"question": "", "answer": "x"},
        {"question": "q", "answer": "x", "sources": "not a list"},
        {"question": "q", "answer": "x", "unknown": 1},
    ],
)
def test_bad_validate_body_is_422_naming_the_field(api: str, body: dict) -> None:
    reply = httpx.post(f"{api}/validate", json=body)
    assert reply.status_code == 422
    assert reply.json()["detail"][0]["loc"][0] == "body"


def test_evaluate_errors(api: str) -> None:
    missing = httpx.post(f"{api}/evaluate", json={"config_path": "nope.yaml"})
    assert missing.status_code == 404
    broken = httpx.post(f"{api}/evaluate", json={"config_path": "broken.yaml"})
    assert broken.status_code == 400
    assert "YAML" in broken.json()["detail"]
    outside = httpx.post(f"{api}/evaluate", json={"config_path": "/etc/passwd"})
    assert outside.status_code == 400
    unknown = httpx.post(f"{api}/evaluate", json={"target": "no-such-target"})
    assert unknown.status_code == 400
    assert httpx.post(f"{api}/evaluate", json={"target": 3}).status_code == 422


@pytest.mark.slow
def test_evaluate_runs_the_recorded_target_one_audit_at_a_time(api: str) -> None:
    replies: list[httpx.Response] = []
    together = threading.Barrier(2)

    def evaluate() -> None:
        together.wait()
        replies.append(httpx.post(f"{api}/evaluate", json={"target": "recorded"}, timeout=600))

    threads = [threading.Thread(target=evaluate) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # The second audit is refused at once, not queued behind the first.
    busy, reply = sorted(replies, key=lambda r: r.status_code, reverse=True)
    assert busy.status_code == 503, busy.text
    assert busy.json()["detail"].startswith("busy: an audit is running (one at a time)")
    assert int(busy.headers["retry-after"]) >= 1
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["decision"] in {"deploy", "warn", "block", "incomplete"}
    assert body["total_claims"] == len(body["details"]) > 0
    assert body["total_claims"] == sum(
        body[k]
        for k in ("supported", "weakly_supported", "unsupported", "contradicted", "unverifiable")
    )
    assert {"claim", "label", "justification"} <= set(body["details"][0])
    assert body["audit_id"]
