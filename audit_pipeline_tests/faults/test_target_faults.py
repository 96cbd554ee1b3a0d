"""Faults of a chatbot endpoint, met through the real ``http`` target and ``run_suite``.

The endpoint here misbehaves at the byte level (a body cut off mid-way, a reset, a body
trickled past the deadline, an endless chunked stream), which ``ChatServer`` cannot do, so a
small raw TCP server speaks just enough HTTP/1.1 for it. Cases that the target tests already
cover with ``ChatServer`` (a 5xx then success, a 5xx until retries run out, a slow header, a
404, HTML, a missing answer key, a declared oversized body) are not repeated; here each fault
sits in a suite with healthy prompts and a conversation, run in parallel, because what an
audit depends on is the invariant around the fault: exactly one row per suite turn, in suite
order, each answer filed under the prompt that asked for it, and the run always finishing.
"""

from __future__ import annotations

import contextlib
import json
import socket
import socketserver
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from audit_pipeline.suites import PromptSuite
from audit_pipeline.targets import (
    ResponseRecord,
    build_target,
    close_target,
    parse_target_config,
    run_suite,
)
from audit_pipeline.warehouse.audit_tables import load_response_records, write_responses
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.targets.helpers import conversation, single, suite_of

Action = Callable[[socket.socket], None]
Script = Callable[[str, int], Action]  # (message, attempt number from 1) -> what to send

HEALTHY = [single(f"OK-{i}", f"healthy question {i}") for i in range(6)]


def answer_for(message: str) -> str:
    return f"answer to: {message}"


# -- a raw HTTP server ------------------------------------------------------------------------


def _head(status: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} X", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
    return "\r\n".join(lines).encode()


def reply(status: int = 200, body: Any = None, content_type: str = "application/json") -> Action:
    """A complete response; ``body`` bytes go out as they are, anything else as JSON."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()

    def send(sock: socket.socket) -> None:
        headers = {"Content-Type": content_type, "Content-Length": str(len(data))}
        sock.sendall(_head(status, {**headers, "Connection": "close"}) + data)

    return send


def answer(message: str) -> Action:
    return reply(body={"answer": answer_for(message)})


def cut_off(declared: int = 4000, sent: bytes = b'{"answer": "Backups are encr') -> Action:
    """Headers promising ``declared`` bytes, part of the body, then the connection closes."""

    def send(sock: socket.socket) -> None:
        headers = {"Content-Type": "application/json", "Content-Length": str(declared)}
        sock.sendall(_head(200, headers) + sent)

    return send


def drop(sock: socket.socket) -> None:
    """Read the request, then close without a single byte of response."""


def reset(sock: socket.socket) -> None:
    """Abort the connection with a TCP RST (SO_LINGER 0) instead of an orderly close."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def chunked(chunk: bytes, every_s: float, for_s: float) -> Action:
    """A chunked 200 that keeps sending ``chunk`` until ``for_s`` passes or the client leaves."""

    def send(sock: socket.socket) -> None:
        head = {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}
        opening = b'{"answer": "'
        sock.sendall(_head(200, head) + f"{len(opening):x}\r\n".encode() + opening + b"\r\n")
        frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        stop = time.monotonic() + for_s
        with contextlib.suppress(OSError):
            while time.monotonic() < stop:
                sock.sendall(frame)
                if every_s:
                    time.sleep(every_s)

    return send


def stall(seconds: float, then: Action) -> Action:
    def send(sock: socket.socket) -> None:
        time.sleep(seconds)
        then(sock)

    return send


class RawServer:
    """A threaded TCP server on 127.0.0.1 that reads one HTTP request per connection and lets
    the test's script decide, per message and attempt, what goes back on the socket."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.attempts: Counter[str] = Counter()
        self.lock = threading.Lock()
        server = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                sock: socket.socket = self.request
                message = _read_message(sock)
                with server.lock:
                    server.attempts[message] += 1
                    attempt = server.attempts[message]
                # The client may have given up already (timeout, size cap): that is the point.
                with contextlib.suppress(OSError):
                    server.script(message, attempt)(sock)

        class Server(socketserver.ThreadingTCPServer):
            daemon_threads = True
            allow_reuse_address = True
            request_queue_size = 64

        self._server = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/chat"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _read_message(sock: socket.socket) -> str:
    data = b""
    while b"\r\n\r\n" not in data:
        piece = sock.recv(65536)
        if not piece:
            return ""
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return str(json.loads(body)["message"])


@pytest.fixture
def raw_server() -> Iterator[Callable[[Script], RawServer]]:
    started: list[RawServer] = []

    def start(script: Script) -> RawServer:
        server = RawServer(script)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


# -- running a suite and checking the invariant ----------------------------------------------


def run(
    url: str, suite: PromptSuite, *, max_retries: int = 2, **settings: Any
) -> list[ResponseRecord]:
    config = parse_target_config(
        "faulty-bot",
        {
            "type": "http",
            "url": url,
            "request_template": {"message": "{{prompt}}", "history": "{{history}}"},
            "answer_path": "answer",
            "timeout_s": 2,
            **settings,
        },
    )
    target = build_target("faulty-bot", config)
    try:
        return run_suite(
            suite,
            target,
            audit_id="faults",
            concurrency=4,
            max_retries=max_retries,
            backoff_base_s=0,
        )
    finally:
        close_target(target)


def check_rows(
    suite: PromptSuite, records: list[ResponseRecord]
) -> dict[tuple[str, int], ResponseRecord]:
    """One row per suite turn, in suite order, none twice; every answer belongs to its prompt.
    Returns the rows by (prompt id, turn) for the case-specific assertions."""
    expected = [(p.id, turn) for p in suite.prompts for turn in range(len(p.turns))]
    assert [(r.prompt_id, r.turn) for r in records] == expected
    prompts = {(p.id, turn): t.prompt for p in suite.prompts for turn, t in enumerate(p.turns)}
    for record in records:
        assert record.prompt == prompts[(record.prompt_id, record.turn)]
        assert (record.response is None) == (record.error is not None)
        if record.error is None:
            assert record.response == answer_for(record.prompt)
    return {(r.prompt_id, r.turn): r for r in records}


def healthy_answered(rows: dict[tuple[str, int], ResponseRecord]) -> None:
    for entry in HEALTHY:
        assert rows[(entry["id"], 0)].error is None
        assert rows[(entry["id"], 0)].attempts == 1


# -- the faults --------------------------------------------------------------------------------


def test_5xx_mid_conversation_with_proxy_html_and_oversized_error_bodies(
    raw_server: Callable[[Script], RawServer],
) -> None:
    """A gateway's HTML 502 and a 500 with a body over the size cap are both still retryable
    server errors, and a conversation whose turn 1 fails keeps turn 0 and skips turn 2."""
    gateway = b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"

    def script(message: str, attempt: int) -> Action:
        if message == "then this fails":
            return reply(502, gateway, content_type="text/html")
        if message == "huge error page":
            return reply(500, b"E" * 50_000, content_type="text/plain")
        if message == "flaky" and attempt < 3:
            return reply(503, {"error": "busy"})
        return answer(message)

    server = raw_server(script)
    suite = suite_of(
        *HEALTHY[:3],
        conversation("CONV", "hello", "then this fails", "never asked"),
        single("BIG", "huge error page"),
        single("FLAKY", "flaky"),
        *HEALTHY[3:],
    )
    rows = check_rows(suite, run(server.url, suite, max_retries=2, max_body_bytes=10_000))
    healthy_answered(rows)
    assert rows[("CONV", 0)].error is None
    failed = rows[("CONV", 1)]
    assert failed.attempts == 3 and "gave up after 3 attempts" in (failed.error or "")
    assert "HTTP 502" in (failed.error or "") and "502 Bad Gateway" in (failed.error or "")
    assert rows[("CONV", 2)].attempts == 0
    assert rows[("CONV", 2)].error == "not sent: turn 1 of this conversation failed"
    assert server.attempts["never asked"] == 0
    big = rows[("BIG", 0)]
    assert big.attempts == 3 and "HTTP 500" in (big.error or "")
    assert len(big.error or "") < 500  # the error row quotes a snippet, never the whole page
    assert rows[("FLAKY", 0)].attempts == 3 and rows[("FLAKY", 0)].error is None


def test_body_trickled_past_the_deadline_times_out_and_the_run_goes_on(
    raw_server: Callable[[Script], RawServer],
) -> None:
    """Each byte arrives well within httpx's per-read timeout, so only the target's own total
    deadline stops a trickling server; without it this call would hang for the whole stream."""

    def script(message: str, attempt: int) -> Action:
        if message == "trickle":
            return chunked(b"x", every_s=0.05, for_s=5)
        if message == "stalled first turn":
            return stall(1.5, answer(message))
        return answer(message)

    server = raw_server(script)
    suite = suite_of(
        single("TRICKLE", "trickle"),
        *HEALTHY[:3],
        conversation("CONV", "stalled first turn", "follow-up"),
        *HEALTHY[3:],
    )
    began = time.monotonic()
    rows = check_rows(suite, run(server.url, suite, max_retries=1, timeout_s=0.4))
    elapsed = time.monotonic() - began
    healthy_answered(rows)
    trickle = rows[("TRICKLE", 0)]
    assert trickle.attempts == 2
    assert "gave up after 2 attempts" in (trickle.error or "")
    assert "no complete answer within 0.4 s" in (trickle.error or "")
    assert (trickle.latency_ms or 0) < 1500  # the last attempt was cut at its deadline
    assert "no complete answer within 0.4 s" in (rows[("CONV", 0)].error or "")
    assert rows[("CONV", 1)].error == "not sent: turn 0 of this conversation failed"
    assert server.attempts["follow-up"] == 0
    assert elapsed < 4  # far less than the 5 s stream or two full stalls in sequence


@pytest.mark.parametrize(
    ("body", "content_type", "problem"),
    [
        (b'{"answer": "Backups are encrypted', "application/json", "response is not JSON"),
        (b"", "application/json", "response is not JSON"),
        (b"\xff\xfe\x00garbage\x80", "application/json", "response is not JSON"),
        (
            b"<!DOCTYPE html><html><body><h1>Sign in to continue</h1></body></html>",
            "text/html",
            "response is not JSON",
        ),
        (b'[{"answer": "in a list"}]', "application/json", "is a list of 1, no item 'answer'"),
        (b'"just a string"', "application/json", "$ is str, not an object or list"),
        (b'{"result": {"text": "elsewhere"}}', "application/json", "$ has no key 'answer'"),
        (b'{"answer": null}', "application/json", "holds NoneType, expected a string"),
        (b'{"answer": {"text": "nested"}}', "application/json", "holds dict, expected a string"),
        (b'{"answer": NaN}', "application/json", "holds float, expected a string"),
        (b"[" * 50_000 + b"]" * 50_000, "application/json", "response is not JSON"),
    ],
    ids=[
        "truncated-json",
        "empty",
        "not-utf8",
        "html-login-page",
        "json-array",
        "json-string",
        "no-answer-path",
        "answer-null",
        "answer-object",
        "answer-nan",
        "deeply-nested",
    ],
)
def test_garbage_200_becomes_an_error_row_naming_the_problem(
    raw_server: Callable[[Script], RawServer], body: bytes, content_type: str, problem: str
) -> None:
    """A 200 that is not the expected JSON is a permanent fault of the endpoint: one error row
    that says what was wrong, no retry (the same request would get the same garbage)."""

    def script(message: str, attempt: int) -> Action:
        if message == "garbage":
            return reply(200, body, content_type=content_type)
        return answer(message)

    server = raw_server(script)
    suite = suite_of(*HEALTHY[:3], single("BAD", "garbage"), *HEALTHY[3:])
    rows = check_rows(suite, run(server.url, suite))
    healthy_answered(rows)
    bad = rows[("BAD", 0)]
    assert bad.attempts == 1 and server.attempts["garbage"] == 1
    assert problem in (bad.error or "")
    assert len(bad.error or "") < 500


def test_endless_chunked_body_is_refused_at_the_cap_without_reading_on(
    raw_server: Callable[[Script], RawServer],
) -> None:
    """Without a Content-Length the cap can only be enforced while reading: the target must
    stop at ``max_body_bytes``, not drain the stream (which would end in a timeout instead)."""

    def script(message: str, attempt: int) -> Action:
        if message == "endless":
            return chunked(b"a" * 16_384, every_s=0, for_s=10)
        if message == "just under":
            return reply(body={"answer": answer_for(message), "pad": "p" * 9_000})
        return answer(message)

    server = raw_server(script)
    suite = suite_of(single("ENDLESS", "endless"), *HEALTHY, single("UNDER", "just under"))
    began = time.monotonic()
    rows = check_rows(suite, run(server.url, suite, max_body_bytes=10_000, timeout_s=5))
    healthy_answered(rows)
    endless = rows[("ENDLESS", 0)]
    assert endless.attempts == 1
    assert "response body larger than 10000 bytes" in (endless.error or "")
    assert rows[("UNDER", 0)].error is None
    assert time.monotonic() - began < 3


@pytest.mark.parametrize(
    ("fault", "problem"),
    [
        (cut_off(), "RemoteProtocolError"),
        (drop, "RemoteProtocolError"),
        (reset, "connection failed"),
    ],
    ids=["cut-mid-body", "closed-before-response", "reset"],
)
def test_connection_lost_mid_response_is_retried_then_an_error_row(
    raw_server: Callable[[Script], RawServer], fault: Action, problem: str
) -> None:
    """A connection that dies mid-response is transient: retried, recovered when the next
    attempt works, an error row when none does; a half-read body is never used as an answer."""

    def script(message: str, attempt: int) -> Action:
        if message == "always broken" or (message == "broken once" and attempt == 1):
            return fault
        return answer(message)

    server = raw_server(script)
    suite = suite_of(
        *HEALTHY[:3],
        single("DEAD", "always broken"),
        conversation("CONV", "broken once", "second turn"),
        *HEALTHY[3:],
    )
    rows = check_rows(suite, run(server.url, suite, max_retries=2))
    healthy_answered(rows)
    dead = rows[("DEAD", 0)]
    assert dead.attempts == 3 and server.attempts["always broken"] == 3
    assert "gave up after 3 attempts" in (dead.error or "")
    assert "connection failed" in (dead.error or "") and problem in (dead.error or "")
    assert rows[("CONV", 0)].attempts == 2 and rows[("CONV", 0)].error is None
    assert rows[("CONV", 1)].error is None  # the conversation went on after the recovery


def test_server_gone_gives_every_turn_an_error_row() -> None:
    """Nothing listening (a crashed bot): connection refused everywhere, the run still ends with
    a row per turn rather than an exception."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    suite = suite_of(*HEALTHY[:3], conversation("CONV", "a", "b", "c"))
    rows = check_rows(suite, run(f"http://127.0.0.1:{port}/chat", suite, max_retries=1))
    for key, record in rows.items():
        if key[0] == "CONV" and key[1] > 0:
            assert record.attempts == 0 and record.error and record.error.startswith("not sent")
        else:
            assert record.attempts == 2 and "ConnectError" in (record.error or "")


def test_fault_rows_reach_the_warehouse_intact(
    raw_server: Callable[[Script], RawServer], tmp_path: Path
) -> None:
    """Error rows quote hostile bytes (NUL, invalid UTF-8, markup) from the endpoint; they must
    store and read back unchanged, one per turn, or the audit's denominator would shrink in
    the tables analysts query even though the runner got it right."""

    def script(message: str, attempt: int) -> Action:
        if message == "nul":
            return reply(500, b"crash\x00dump \xff\xfe <script>alert(1)</script>", "text/plain")
        if message == "cut":
            return cut_off()
        if message == "garbage":
            return reply(200, b"\x00\x01 not json", "application/octet-stream")
        return answer(message)

    server = raw_server(script)
    suite = suite_of(
        *HEALTHY[:2],
        single("NUL", "nul"),
        conversation("CONV", "cut", "skipped"),
        single("GARBAGE", "garbage"),
        *HEALTHY[2:],
    )
    records = run(server.url, suite, max_retries=1)
    check_rows(suite, records)
    assert sum(1 for r in records if r.error) == 4
    warehouse = Warehouse(tmp_path / "audit.duckdb")
    warehouse.migrate()
    assert write_responses(warehouse, "faults", records) == len(records)
    stored = load_response_records(warehouse, "faults")
    assert sorted(stored, key=lambda r: (r.prompt_id, r.turn)) == sorted(
        records, key=lambda r: (r.prompt_id, r.turn)
    )
    assert "\x00" in (next(r for r in stored if r.prompt_id == "NUL").error or "")
