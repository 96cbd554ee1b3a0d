from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from audit_pipeline.targets import (
    ResponseCache,
    Target,
    TargetConfigError,
    build_target,
    parse_target_config,
    run_suite,
)
from audit_pipeline_tests.targets.helpers import conversation, single, suite_of
from benchmarks.chat_server import (
    ChatServer,
    ReceivedRequest,
    ServerReply,
    openai_completion,
)

StartServer = Callable[[Callable[[ReceivedRequest], ServerReply]], ChatServer]
KEY = "sk-test-0123456789abcdef-DO-NOT-LEAK"


def litellm_target(server: ChatServer, **overrides: object) -> Target:
    settings: dict[str, object] = {
        "type": "litellm",
        "model": "openai/local-model",
        "api_base": f"{server.url}/v1",
        "api_key_env": "AUDIT_TEST_KEY",
        "system_prompt": "Answer only from the vault.",
        "params": {"temperature": 0, "max_tokens": 64},
        "timeout_s": 5,
        **overrides,
    }
    return build_target("gpt", parse_target_config("gpt", settings))


def answer_with_turn_count(request: ReceivedRequest) -> ServerReply:
    messages = request.json()["messages"]
    return ServerReply(
        body=openai_completion(f"{len(messages)} messages; last: {messages[-1]['content']}")
    )


def test_completion_through_local_openai_server(
    chat_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUDIT_TEST_KEY", KEY)
    server = chat_server(answer_with_turn_count)
    suite = suite_of(single("Q", "What is MFA?"), conversation("C", "Hi", "And backups?"))
    records = run_suite(suite, litellm_target(server), audit_id="a1", backoff_base_s=0)
    by_turn = {(r.prompt_id, r.turn): r for r in records}
    assert by_turn[("Q", 0)].response == "2 messages; last: What is MFA?"
    assert (by_turn[("Q", 0)].prompt_tokens, by_turn[("Q", 0)].completion_tokens) == (11, 7)
    assert by_turn[("Q", 0)].model and "local-model" in by_turn[("Q", 0)].model
    assert by_turn[("Q", 0)].cost is None  # no price for a local model
    assert all(r.error is None and r.attempts == 1 for r in records)
    assert all(r.path == "/v1/chat/completions" for r in server.requests)
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in server.requests)
    follow_up = next(
        r.json() for r in server.requests if r.json()["messages"][-1]["content"] == "And backups?"
    )
    assert follow_up["messages"] == [
        {"role": "system", "content": "Answer only from the vault."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "2 messages; last: Hi"},
        {"role": "user", "content": "And backups?"},
    ]
    assert follow_up["temperature"] == 0 and follow_up["max_tokens"] == 64


def test_missing_key_variable_is_named_before_any_call(
    chat_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AUDIT_TEST_KEY", raising=False)
    server = chat_server(answer_with_turn_count)
    with pytest.raises(TargetConfigError, match="environment variable AUDIT_TEST_KEY is not set"):
        litellm_target(server)
    assert server.count == 0


def test_server_errors_are_retried_by_the_runner_only(
    chat_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUDIT_TEST_KEY", KEY)

    def respond(request: ReceivedRequest) -> ServerReply:
        content = request.json()["messages"][-1]["content"]
        if content == "bad request":
            return ServerReply(status=400, body={"error": {"message": "invalid"}})
        return ServerReply(status=500, body={"error": {"message": f"boom {KEY}"}})

    server = chat_server(respond)
    suite = suite_of(single("E", "explode"), single("B", "bad request"))
    records = run_suite(
        suite, litellm_target(server), audit_id="a1", max_retries=2, backoff_base_s=0
    )
    explode, bad = records
    assert explode.attempts == 3 and "InternalServerError" in (explode.error or "")
    assert bad.attempts == 1 and "BadRequestError" in (bad.error or "")
    contents = [r.json()["messages"][-1]["content"] for r in server.requests]
    assert contents.count("explode") == 3  # no hidden retries inside litellm or the SDK
    assert KEY not in repr([r.to_row() for r in records])


def test_key_never_reaches_records_or_cache(
    chat_server: StartServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AUDIT_TEST_KEY", KEY)
    server = chat_server(answer_with_turn_count)
    target = litellm_target(server)
    cache = ResponseCache(tmp_path / "cache")
    records = run_suite(suite_of(single("Q", "hello")), target, audit_id="a", cache=cache)
    assert records[0].error is None
    files = list((tmp_path / "cache").rglob("*"))
    assert any(path.suffix == ".json" for path in files)
    for path in files:
        assert KEY not in path.name
        if path.is_file():
            assert KEY not in path.read_text()
    assert KEY not in repr(records[0].to_row())
    assert KEY not in repr(target) and KEY not in target.fingerprint()


def test_secret_params_are_refused() -> None:
    with pytest.raises(TargetConfigError, match="params may not set api_key"):
        parse_target_config("gpt", {"type": "litellm", "model": "m", "params": {"api_key": "x"}})
