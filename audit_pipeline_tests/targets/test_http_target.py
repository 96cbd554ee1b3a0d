from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from audit_pipeline.targets import (
    HttpTargetConfig,
    ResponseCache,
    TargetConfigError,
    build_target,
    parse_target_config,
    run_suite,
)
from audit_pipeline.targets.http_target import HttpTarget
from audit_pipeline_tests.targets.helpers import conversation, single, suite_of
from benchmarks.chat_server import ChatServer, ReceivedRequest, ServerReply

StartServer = Callable[[Callable[[ReceivedRequest], ServerReply]], ChatServer]


def http_target(server: ChatServer, **overrides: object) -> HttpTarget:
    settings: dict[str, object] = {
        "type": "http",
        "url": f"{server.url}/api/chat",
        "request_template": {"message": "{{prompt}}", "history": "{{history}}"},
        "answer_path": "$.answer",
        "citations_path": "sources",
        "context_path": "context",
        "timeout_s": 5,
        **overrides,
    }
    target = build_target("shield-bot", parse_target_config("shield-bot", settings))
    assert isinstance(target, HttpTarget)
    return target


def echo(request: ReceivedRequest) -> ServerReply:
    body = request.json()
    return ServerReply(
        body={
            "answer": f"You asked: {body['message']} ({len(body['history'])} earlier)",
            "sources": ["encryption.md#At rest"],
            "context": [{"text": "AES-256 at rest."}],
        }
    )


def test_answer_citations_context_and_history(chat_server: StartServer) -> None:
    server = chat_server(echo)
    tricky = 'He said "}{" and {{braces}} \\ ok?'
    suite = suite_of(single("Q-1", tricky), conversation("C-1", "first", "second"))
    with http_target(server) as target:
        records = run_suite(suite, target, audit_id="a1", backoff_base_s=0)
    assert [(r.prompt_id, r.turn) for r in records] == [("Q-1", 0), ("C-1", 0), ("C-1", 1)]
    assert records[0].response == f"You asked: {tricky} (0 earlier)"
    assert records[0].citations[0].file == "encryption.md"
    assert records[0].citations[0].section == "At rest"
    assert records[0].context == ("AES-256 at rest.",)
    assert all(r.error is None and r.attempts == 1 for r in records)
    second = next(r for r in server.requests if r.json()["message"] == "second").json()
    assert second["history"] == [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "You asked: first (0 earlier)"},
    ]


def test_server_error_then_success_is_retried(chat_server: StartServer) -> None:
    calls: dict[str, int] = {}
    lock = threading.Lock()

    def flaky(request: ReceivedRequest) -> ServerReply:
        message = request.json()["message"]
        with lock:
            calls[message] = calls.get(message, 0) + 1
            first = calls[message] == 1
        if message == "flaky" and first:
            return ServerReply(status=500, body={"error": "overloaded"})
        if message == "broken":
            return ServerReply(status=503, body=b"down for maintenance")
        return ServerReply(body={"answer": f"ok {message}"})

    server = chat_server(flaky)
    suite = suite_of(single("A", "flaky"), single("B", "broken"), single("C", "fine"))
    with http_target(server) as target:
        records = run_suite(suite, target, audit_id="a1", max_retries=2, backoff_base_s=0.001)
    flaky_row, broken_row, fine_row = records
    assert (flaky_row.response, flaky_row.attempts, flaky_row.error) == ("ok flaky", 2, None)
    assert broken_row.response is None and broken_row.attempts == 3
    assert "gave up after 3 attempts" in broken_row.error
    assert "HTTP 503: down for maintenance" in broken_row.error
    assert (fine_row.response, fine_row.attempts) == ("ok fine", 1)
    assert calls == {"flaky": 2, "broken": 3, "fine": 1}


def test_slow_server_times_out_and_the_run_goes_on(chat_server: StartServer) -> None:
    def slow_for_one(request: ReceivedRequest) -> ServerReply:
        message = request.json()["message"]
        return ServerReply(body={"answer": message}, delay_s=1.0 if message == "slow" else 0)

    server = chat_server(slow_for_one)
    suite = suite_of(single("S", "slow"), single("F", "fast"))
    with http_target(server, timeout_s=0.2) as target:
        records = run_suite(suite, target, audit_id="a1", max_retries=1, backoff_base_s=0)
    slow, fast = records
    assert slow.attempts == 2 and "no complete answer within 0.2 s" in (slow.error or "")
    assert fast.response == "fast" and fast.error is None


def test_permanent_failures_are_not_retried(chat_server: StartServer) -> None:
    def respond(request: ReceivedRequest) -> ServerReply:
        message = request.json()["message"]
        if message == "404":
            return ServerReply(status=404, body={"error": "no such route"})
        if message == "html":
            return ServerReply(body=b"<html>oops</html>")
        if message == "nopath":
            return ServerReply(body={"reply": "x"})
        return ServerReply(body={"answer": 42})

    server = chat_server(respond)
    suite = suite_of(*(single(m, m) for m in ("404", "html", "nopath", "number")))
    with http_target(server) as target:
        records = run_suite(suite, target, audit_id="a1", max_retries=3, backoff_base_s=0)
    errors = {r.prompt_id: r.error or "" for r in records}
    assert all(r.attempts == 1 for r in records)
    assert "HTTP 404" in errors["404"]
    assert "response is not JSON" in errors["html"] and "<html>oops</html>" in errors["html"]
    assert "$ has no key 'answer'" in errors["nopath"]
    assert "holds int, expected a string" in errors["number"]


def test_rate_limit_honours_retry_after(chat_server: StartServer) -> None:
    seen: list[int] = []

    def limited(request: ReceivedRequest) -> ServerReply:
        seen.append(1)
        if len(seen) == 1:
            return ServerReply(status=429, body={}, headers={"Retry-After": "0.3"})
        return ServerReply(body={"answer": "ok"})

    server = chat_server(limited)
    with http_target(server) as target:
        (record,) = run_suite(suite_of(single("R", "q")), target, audit_id="a", backoff_base_s=0)
    assert record.attempts == 2 and record.response == "ok"
    waited = (record.finished_at - record.started_at).total_seconds()
    assert waited >= 0.3


def test_huge_body_is_refused(chat_server: StartServer) -> None:
    server = chat_server(lambda _: ServerReply(body={"answer": "x" * 50_000}))
    with http_target(server, max_body_bytes=10_000) as target:
        (record,) = run_suite(suite_of(single("BIG", "q")), target, audit_id="a")
    assert record.response is None
    assert "response body larger than 10000 bytes" in (record.error or "")
    assert record.attempts == 1


def test_header_secrets_come_from_env_and_never_leak(
    chat_server: StartServer, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    secret = "tok-9f8e7d6c5b4a-SECRET"
    monkeypatch.setenv("SHIELD_TOKEN", secret)

    def echo_auth(request: ReceivedRequest) -> ServerReply:
        auth = request.headers.get("authorization", "")
        if request.json()["message"] == "deny":
            return ServerReply(status=401, body={"error": f"bad credentials {auth}"})
        return ServerReply(body={"answer": "fine"})

    server = chat_server(echo_auth)
    target = http_target(server, headers_env={"Authorization": "Bearer ${SHIELD_TOKEN}"})
    cache = ResponseCache(tmp_path / "cache")
    with target:
        records = run_suite(
            suite_of(single("OK", "hello"), single("NO", "deny")),
            target,
            audit_id="a",
            cache=cache,
        )
    assert server.requests[0].headers["authorization"] == f"Bearer {secret}"
    assert records[0].response == "fine"
    assert "HTTP 401" in (records[1].error or "") and "***" in (records[1].error or "")
    assert secret not in repr([r.to_row() for r in records])
    assert secret not in repr(target) and secret not in target.fingerprint()
    stored = "".join(p.read_text() for p in (tmp_path / "cache").rglob("*.json"))
    assert stored and secret not in stored


def test_missing_header_env_var_fails_before_any_call(
    chat_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SHIELD_TOKEN", raising=False)
    server = chat_server(echo)
    with pytest.raises(TargetConfigError, match=r"SHIELD_TOKEN \(header Authorization\)"):
        http_target(server, headers_env={"Authorization": "SHIELD_TOKEN"})
    assert server.count == 0


def test_messages_template_for_openai_style_endpoints(chat_server: StartServer) -> None:
    def chat(request: ReceivedRequest) -> ServerReply:
        messages = request.json()["messages"]
        return ServerReply(body={"choices": [{"message": {"content": str(len(messages))}}]})

    server = chat_server(chat)
    target = http_target(
        server,
        request_template={"model": "m", "messages": "{{messages}}"},
        answer_path="choices.0.message.content",
        citations_path=None,
        context_path=None,
    )
    with target:
        records = run_suite(suite_of(conversation("C", "a", "b")), target, audit_id="a")
    assert [r.response for r in records] == ["1", "3"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"url": "ftp://example.com/chat"}, "is not an http(s) URL"),
        ({"url": "file:///etc/passwd"}, "is not an http(s) URL"),
        ({"headers": {"Authorization": "Bearer x"}}, "move it to headers_env"),
        ({"request_template": {"q": "fixed"}}, "never sends the prompt"),
        ({"request_template": {"q": "{{prompt}} {{history}}"}}, "must be a whole string"),
        ({"answer_path": "a..b"}, "cannot read it"),
        ({"anwser_path": "x"}, "anwser_path: Extra inputs are not permitted"),
        ({"headers_env": {"X-Key": "not a name"}}, "environment variable name"),
    ],
)
def test_bad_http_config_is_rejected_with_the_field(
    change: dict[str, object], message: str
) -> None:
    settings = {"type": "http", "url": "http://127.0.0.1:9/x", "answer_path": "a", **change}
    with pytest.raises(TargetConfigError) as caught:
        parse_target_config("bot", settings)
    assert message in str(caught.value)
    assert "target 'bot'" in str(caught.value)


def test_fingerprint_tracks_answer_shaping_settings_only() -> None:
    def fingerprint(**change: object) -> str:
        settings = {"type": "http", "url": "http://127.0.0.1:9/x", "answer_path": "a", **change}
        config = parse_target_config("bot", settings)
        assert isinstance(config, HttpTargetConfig)
        with HttpTarget("bot", config) as target:
            return target.fingerprint()

    assert fingerprint() == fingerprint(timeout_s=5, concurrency=9, max_retries=0)
    assert fingerprint() != fingerprint(answer_path="b")
    assert fingerprint() != fingerprint(url="http://127.0.0.1:9/y")
