"""Prometheus counters from a real audit, and structured JSON log lines from the runner."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from audit_pipeline.assertions.assertion_settings import AssertionSettings
from audit_pipeline.config import load_config
from audit_pipeline.logs import JsonFormatter, add_json_file_handler, log_event
from audit_pipeline.observability.prometheus import audit_registry, render, write_metrics
from audit_pipeline.targets.kinds import build_target
from audit_pipeline.targets.suite_runner import run_suite
from audit_pipeline.targets.target_config import parse_target_config
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.targets.helpers import single, suite_of
from benchmarks.chat_server import ChatServer, ReceivedRequest, ServerReply


def _samples(text: str) -> dict[str, list]:
    return {family.name: family.samples for family in text_string_to_metric_families(text)}


def test_metrics_of_a_real_audit_match_the_warehouse(audited_config: Path, tmp_path: Path) -> None:
    config = load_config(audited_config)
    warehouse = Warehouse(config.duckdb_path)
    audit_id = warehouse.scalar("SELECT audit_id FROM audits ORDER BY started_at DESC LIMIT 1")
    registry = audit_registry(warehouse, audit_id, AssertionSettings())
    families = _samples(render(registry))
    assert {
        "audit_pipeline_audits",
        "audit_pipeline_responses",
        "audit_pipeline_claims",
        "audit_pipeline_verdicts",
        "audit_pipeline_abstentions",
        "audit_pipeline_service_requests",
        "audit_pipeline_circuit_breaker_state",
    } <= set(families)
    responses = {s.labels["status"]: s.value for s in families["audit_pipeline_responses"]}
    errors = warehouse.scalar(
        "SELECT count(*) FROM responses WHERE audit_id = ? AND error IS NOT NULL", [audit_id]
    )
    assert responses["error"] == errors > 0  # most suite prompts have no recorded answer
    claims = warehouse.scalar("SELECT count(*) FROM claims WHERE audit_id = ?", [audit_id])
    assert families["audit_pipeline_claims"][0].value == claims
    by_label = {s.labels["label"]: s.value for s in families["audit_pipeline_verdicts"]}
    assert sum(by_label.values()) == claims
    breaker = families["audit_pipeline_circuit_breaker_state"][0]
    assert breaker.labels["service"] == "embedder" and breaker.value == 0  # closed

    path = write_metrics(registry, tmp_path / "metrics" / "recorded.prom")
    assert _samples(path.read_text()).keys() == families.keys()


@pytest.fixture
def captured() -> Iterator[list[dict]]:
    lines: list[dict] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(json.loads(JsonFormatter().format(record)))

    handler = Collect()
    logger = logging.getLogger("audit_pipeline")
    previous = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield lines
    logger.removeHandler(handler)
    logger.setLevel(previous)


def test_every_target_call_is_one_structured_line(captured: list[dict]) -> None:
    calls = {"n": 0}

    def respond(request: ReceivedRequest) -> ServerReply:
        calls["n"] += 1
        if calls["n"] == 1:
            return ServerReply(status=503, body={"error": "busy"})
        return ServerReply(body={"answer": "ok"})

    server = ChatServer(respond).start()
    try:
        config = parse_target_config(
            "bot", {"type": "http", "url": server.url, "answer_path": "$.answer"}
        )
        suite = suite_of(single("P-1", "first?"), single("P-2", "second?"))
        run_suite(
            suite, build_target("bot", config), audit_id="A1", concurrency=1, backoff_base_s=0.01
        )
    finally:
        server.stop()
    calls_logged = [line for line in captured if line["event"] == "target_call"]
    retries = [line for line in captured if line["event"] == "target_retry"]
    assert sorted(line["request_id"] for line in calls_logged) == ["A1:P-1:0", "A1:P-2:0"]
    for line in calls_logged:
        assert line["component"] == "targets.runner"
        assert line["level"] == "info" and line["status"] == "ok"
        assert isinstance(line["latency_ms"], float)
        assert line["timestamp"].endswith("+00:00")
    assert len(retries) == 1 and retries[0]["level"] == "warning"
    assert "503" in retries[0]["error"]


def test_json_file_handler_writes_parseable_lines(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "audit.jsonl"
    handler = add_json_file_handler(path)
    try:
        log_event(
            logging.getLogger("audit_pipeline.verification"),
            "judge_call",
            request_id="A1:P-1:0",
            latency_ms=12.345,
            verifier="llm",
        )
    finally:
        logging.getLogger("audit_pipeline").removeHandler(handler)
        handler.close()
    (line,) = [json.loads(text) for text in path.read_text().splitlines()]
    assert line["component"] == "verification"
    assert line["event"] == "judge_call"
    assert line["request_id"] == "A1:P-1:0" and line["latency_ms"] == 12.3
    assert line["verifier"] == "llm"
