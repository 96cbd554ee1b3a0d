from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

import pytest

from audit_pipeline.targets import (
    ResponseCache,
    RetryableTargetError,
    TargetError,
    TargetReply,
    TargetRequest,
    build_target,
    parse_target_config,
    run_suite,
)
from audit_pipeline.targets.base import fingerprint_of
from audit_pipeline.targets.http_target import HttpTarget
from audit_pipeline_tests.targets.helpers import conversation, single, suite_of
from benchmarks.chat_server import ChatServer, ReceivedRequest, ServerReply

StartServer = Callable[[Callable[[ReceivedRequest], ServerReply]], ChatServer]


def http_target(server: ChatServer) -> HttpTarget:
    config = parse_target_config(
        "bot",
        {
            "type": "http",
            "url": f"{server.url}/chat",
            "request_template": {"q": "{{prompt}}", "history": "{{history}}"},
            "answer_path": "answer",
        },
    )
    return cast(HttpTarget, build_target("bot", config))


def answer_or_fail(request: ReceivedRequest) -> ServerReply:
    question = request.json()["q"]
    if question.startswith("fail"):
        return ServerReply(status=400, body={"error": "rejected"})
    return ServerReply(body={"answer": f"A:{question}/{len(request.json()['history'])}"})


def test_rerun_is_served_from_cache_and_weekly_run_refreshes_it(
    chat_server: StartServer, tmp_path: Path
) -> None:
    server = chat_server(answer_or_fail)
    suite = suite_of(single("P1", "one"), single("P2", "fail me"), conversation("C", "x", "y"))
    cache = ResponseCache(tmp_path / "cache")
    target = http_target(server)

    first = run_suite(suite, target, audit_id="w1", cache=cache)
    assert server.count == 4
    assert [r.from_cache for r in first] == [False] * 4
    assert first[1].error and "HTTP 400" in first[1].error

    second = run_suite(suite, target, audit_id="w2", cache=cache)
    assert server.count == 5  # only the failed prompt went out again: errors are not cached
    assert [(r.from_cache, r.attempts) for r in second] == [
        (True, 0),
        (False, 1),
        (True, 0),
        (True, 0),
    ]
    assert [r.response for r in second] == [r.response for r in first]
    assert second[0].audit_id == "w2" and second[0].latency_ms == first[0].latency_ms

    entry = cache.path_for(ResponseCache.key(target.fingerprint(), TargetRequest("P1", 0, "one")))
    stored = entry.read_text()
    third = run_suite(suite, target, audit_id="w3", cache=cache, use_cache=False)
    assert server.count == 9
    assert not any(r.from_cache for r in third)
    assert entry.read_text() != stored  # rewritten with the fresh reply
    target.close()


def test_order_uniqueness_bounded_concurrency_and_progress(chat_server: StartServer) -> None:
    in_flight = 0
    peak = 0
    lock = threading.Lock()

    def slow_random(request: ReceivedRequest) -> ServerReply:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(random.uniform(0.001, 0.02))
        with lock:
            in_flight -= 1
        return answer_or_fail(request)

    server = chat_server(slow_random)
    entries = [single(f"P{i:02d}", f"q{i}") for i in range(30)]
    entries.insert(7, conversation("C1", "t0", "t1", "t2"))
    suite = suite_of(*entries)
    seen: list[tuple[int, int]] = []
    with http_target(server) as target:
        records = run_suite(
            suite, target, audit_id="a", concurrency=5, progress=lambda d, t: seen.append((d, t))
        )
    expected = [(p.id, t) for p in suite.prompts for t in range(len(p.turns))]
    assert [(r.prompt_id, r.turn) for r in records] == expected
    assert 1 < peak <= 5
    assert seen == [(done, 33) for done in range(1, 34)]
    chain = [r.response for r in records if r.prompt_id == "C1"]
    assert chain == ["A:t0/0", "A:t1/2", "A:t2/4"]  # each turn saw the whole history


def test_failed_turn_stops_its_conversation_only(chat_server: StartServer) -> None:
    server = chat_server(answer_or_fail)
    suite = suite_of(conversation("C", "hello", "fail now", "never sent"), single("P", "ok"))
    with http_target(server) as target:
        records = run_suite(suite, target, audit_id="a")
    hello, failed, skipped, other = records
    assert hello.error is None and failed.attempts == 1 and "HTTP 400" in (failed.error or "")
    assert skipped.attempts == 0 and skipped.response is None
    assert skipped.error == "not sent: turn 1 of this conversation failed"
    assert other.response == "A:ok/0"
    assert server.count == 3


class LocalBatchBot:
    """A minimal batch-capable target, as a local-model bot would implement the protocol."""

    kind = "batch-echo"

    def __init__(self, batch_size: int) -> None:
        self.name = "batch-bot"
        self.batch_size = batch_size
        self.batches: list[list[str]] = []
        self.batched: list[TargetRequest] = []
        self.single_calls: list[TargetRequest] = []
        self.failures_left = {"flaky": 1}
        self.lock = threading.Lock()

    def fingerprint(self) -> str:
        return fingerprint_of(self.kind, {"batch_size": self.batch_size})

    def answer(self, request: TargetRequest) -> TargetReply:
        with self.lock:
            self.single_calls.append(request)
        return TargetReply(text=f"{request.prompt} after {len(request.history)}")

    def answer_batch(self, requests: Sequence[TargetRequest]) -> list[TargetReply | Exception]:
        with self.lock:
            self.batches.append([request.prompt for request in requests])
            self.batched.extend(requests)
        results: list[TargetReply | Exception] = []
        for request in requests:
            if request.prompt == "broken":
                results.append(TargetError("cannot answer"))
            elif self.failures_left.get(request.prompt, 0) > 0:
                self.failures_left[request.prompt] -= 1
                results.append(RetryableTargetError("busy"))
            else:
                results.append(TargetReply(text=f"batched {request.prompt}", model="local"))
        return results


def test_batch_targets_get_each_round_of_turns_in_batches(tmp_path: Path) -> None:
    bot = LocalBatchBot(batch_size=3)
    suite = suite_of(
        single("A", "a"),
        single("F", "flaky"),
        conversation("C", "c0", "c1"),
        single("B", "broken"),
        conversation("D", "broken", "d1"),
        single("E", "e"),
    )
    cache = ResponseCache(tmp_path / "cache")
    records = run_suite(suite, bot, audit_id="a", cache=cache, concurrency=2, backoff_base_s=0)
    # 6 first turns, 1 retry, then the one second turn whose first was answered
    assert sorted(len(batch) for batch in bot.batches) == [1, 1, 3, 3]
    assert ["flaky"] in bot.batches and ["c1"] in bot.batches
    by_key = {(r.prompt_id, r.turn): r for r in records}
    assert by_key[("F", 0)].response == "batched flaky" and by_key[("F", 0)].attempts == 2
    assert by_key[("B", 0)].error == "cannot answer" and by_key[("B", 0)].attempts == 1
    assert by_key[("D", 1)].error == "not sent: turn 0 of this conversation failed"
    # Later turns go in batches too, each with its own conversation so far.
    assert by_key[("C", 1)].response == "batched c1"
    assert bot.single_calls == []
    (follow_up,) = [request for request in bot.batched if request.turn == 1]
    assert [(t.role, t.content) for t in follow_up.history] == [
        ("user", "c0"),
        ("assistant", "batched c0"),
    ]

    bot.batches.clear()
    again = run_suite(suite, bot, audit_id="b", cache=cache, backoff_base_s=0)
    assert bot.batches == [["broken", "broken"]]  # only the uncached failures
    assert [r.from_cache for r in again].count(True) == 5  # A, F, C turn 0 and 1, E


def test_a_round_waits_only_for_each_conversations_own_earlier_turns() -> None:
    """Third turns go together after the second ones, each with its whole conversation; a
    conversation whose second turn failed sends no third."""
    bot = LocalBatchBot(batch_size=8)
    suite = suite_of(
        conversation("X", "x0", "x1", "x2"),
        conversation("Y", "y0", "broken", "y2"),
        conversation("Z", "z0", "z1", "z2"),
        single("S", "s"),
    )
    records = run_suite(suite, bot, audit_id="a", backoff_base_s=0)
    assert bot.batches == [["x0", "y0", "z0", "s"], ["x1", "broken", "z1"], ["x2", "z2"]]
    third = {r.prompt_id: r for r in bot.batched if r.turn == 2}
    assert [t.content for t in third["Z"].history] == ["z0", "batched z0", "z1", "batched z1"]
    by_key = {(r.prompt_id, r.turn): r for r in records}
    assert by_key[("Y", 2)].error == "not sent: turn 1 of this conversation failed"
    assert [(r.prompt_id, r.turn) for r in records] == [
        (p.id, t) for p in suite.prompts for t in range(len(p.turns))
    ]


def test_a_batch_item_that_stays_busy_gives_up_after_the_policys_attempts() -> None:
    """Batch rounds run under the shared retry policy: only the busy item goes again, and it
    gives up after ``max_retries`` retries like a single call would."""
    bot = LocalBatchBot(batch_size=3)
    bot.failures_left = {"flaky": 99}
    suite = suite_of(single("A", "a"), single("F", "flaky"), single("B", "broken"))
    records = run_suite(suite, bot, audit_id="a", max_retries=2, backoff_base_s=0)
    assert bot.batches == [["a", "flaky", "broken"], ["flaky"], ["flaky"]]
    a, flaky, broken = records
    assert (a.response, a.attempts) == ("batched a", 1)
    assert (flaky.error, flaky.attempts) == ("gave up after 3 attempts: busy", 3)
    assert (broken.error, broken.attempts) == ("cannot answer", 1)


class MisbehavingTarget:
    kind = "misbehaving"
    name = "odd"

    def fingerprint(self) -> str:
        return "x"

    def answer(self, request: TargetRequest) -> TargetReply:
        if request.prompt == "junk":
            return "plain string"  # type: ignore[return-value]
        raise ValueError("unexpected bug")


def test_target_bugs_become_error_rows_without_retries() -> None:
    records = run_suite(
        suite_of(single("J", "junk"), single("V", "value")),
        MisbehavingTarget(),
        audit_id="a",
        backoff_base_s=0,
    )
    assert records[0].error == "target returned str, not a TargetReply"
    assert records[1].error == "ValueError: unexpected bug"
    assert [r.attempts for r in records] == [1, 1]


def test_invalid_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        run_suite(suite_of(single("A", "a")), MisbehavingTarget(), audit_id="a", concurrency=0)
