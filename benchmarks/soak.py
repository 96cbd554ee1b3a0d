"""Soak run of the target runner against a chat endpoint that misbehaves on purpose.

A real threaded HTTP server on 127.0.0.1 injects faults into 20 % of calls by default: 8 %
answer with a 5xx, 4 % run past the target's timeout, 4 % drop the connection with a TCP reset,
4 % answer slowly but within the timeout (the rest after 5-20 ms). Ten thousand prompts go
through the real ``http`` target and ``run_suite`` with retries on. What the run must show:
every suite turn comes back as exactly one row (``lost`` and ``doubled`` are 0), every answer
belongs to the prompt it is filed under, and only the calls whose every attempt failed become
error rows.

The fault pattern is a pure function of (seed, prompt, attempt number), never of timing or
thread order, so two runs with the same arguments meet the same faults and their figures can be
compared; only the wall time and throughput move.

    .venv/bin/python -m benchmarks.soak [--prompts 10000] [--concurrency 16] [--json OUT]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit_pipeline.logs import add_json_file_handler
from audit_pipeline.suites import PromptSuite
from audit_pipeline.targets import (
    ResponseRecord,
    build_target,
    close_target,
    parse_target_config,
    run_suite,
)
from benchmarks.chat_server import ChatServer, ReceivedRequest, ServerReply
from benchmarks.synthetic import synthetic_suite

QUESTION = "Soak question {index}: how are backups encrypted?"

SERVER_ERRORS = (500, 502, 503, 504)


@dataclass(frozen=True)
class FaultPlan:
    """Which fault a call meets, decided from (seed, prompt, attempt) alone.

    Seeding per call rather than sharing one generator keeps the pattern independent of the
    order in which 16 threads happen to reach the server.
    """

    seed: int
    error_rate: float
    timeout_rate: float
    timeout_s: float
    reset_rate: float = 0.0
    slow_rate: float = 0.0

    def reply(self, message: str, attempt: int) -> ServerReply:
        digest = hashlib.sha256(f"{self.seed}:{message}:{attempt}".encode()).digest()
        draw = random.Random(digest)
        roll = draw.random()
        if roll < self.error_rate:
            status = draw.choice(SERVER_ERRORS)
            return ServerReply(status=status, body={"error": "injected fault"})
        roll -= self.error_rate
        if roll < self.timeout_rate:
            # Well past the client's limit, so a slow scheduler cannot turn it into a success.
            return ServerReply(body={"answer": answer_for(message)}, delay_s=self.timeout_s + 0.4)
        roll -= self.timeout_rate
        if roll < self.reset_rate:
            return ServerReply(reset=True, delay_s=draw.uniform(0.0, 0.01))
        roll -= self.reset_rate
        if roll < self.slow_rate:
            # Slow but in time (at most half the limit, so a busy machine keeps it in time).
            delay = draw.uniform(0.25, 0.5) * self.timeout_s
            return ServerReply(body={"answer": answer_for(message)}, delay_s=delay)
        return ServerReply(body={"answer": answer_for(message)}, delay_s=draw.uniform(0.005, 0.02))


class FaultyServer:
    """A ``ChatServer`` answering through a ``FaultPlan``; counts attempts per prompt."""

    def __init__(self, plan: FaultPlan) -> None:
        self.plan = plan
        self.attempts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.server = ChatServer(self._respond)

    def _respond(self, request: ReceivedRequest) -> ServerReply:
        message = request.json()["message"]
        with self._lock:
            self.attempts[message] += 1
            attempt = self.attempts[message]
        return self.plan.reply(message, attempt)

    def __enter__(self) -> FaultyServer:
        self.server.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.stop()


def answer_for(message: str) -> str:
    return f"answer to: {message}"


def tally(suite: PromptSuite, records: list[ResponseRecord]) -> dict[str, int]:
    """Count outcomes against the suite, not against the rows: a row the runner never produced
    or produced twice would be invisible if only the rows were counted."""
    expected = [(p.id, turn, t.prompt) for p in suite.prompts for turn, t in enumerate(p.turns)]
    keys = [(r.prompt_id, r.turn) for r in records]
    seen = Counter(keys)
    missing = sum(1 for prompt_id, turn, _ in expected if seen[(prompt_id, turn)] == 0)
    doubled = sum(count - 1 for count in seen.values() if count > 1)
    prompts = {(prompt_id, turn): text for prompt_id, turn, text in expected}
    misfiled = sum(
        1
        for r in records
        if r.error is None and r.response != answer_for(prompts.get((r.prompt_id, r.turn), ""))
    )
    return {
        "sent": len(expected),
        "completed": sum(1 for r in records if r.error is None),
        "failed": sum(1 for r in records if r.error is not None),
        "lost": missing,
        "doubled": doubled,
        "misfiled": misfiled,
        "out_of_order": int(keys != [(prompt_id, turn) for prompt_id, turn, _ in expected]),
        "retries": sum(max(0, r.attempts - 1) for r in records),
    }


def soak(
    prompts: int,
    concurrency: int,
    *,
    seed: int,
    timeout_s: float,
    max_retries: int,
    backoff_s: float,
    error_rate: float,
    timeout_rate: float,
    reset_rate: float = 0.0,
    slow_rate: float = 0.0,
) -> dict[str, Any]:
    plan = FaultPlan(seed, error_rate, timeout_rate, timeout_s, reset_rate, slow_rate)
    suite = synthetic_suite(prompts, "soak", "SOAK", QUESTION)
    with FaultyServer(plan) as faulty:
        config = parse_target_config(
            "soak",
            {
                "type": "http",
                "url": f"{faulty.server.url}/api/chat",
                "request_template": {"message": "{{prompt}}", "history": "{{history}}"},
                "answer_path": "answer",
                "timeout_s": timeout_s,
                "max_retries": max_retries,
                "concurrency": concurrency,
            },
        )
        target = build_target("soak", config)
        try:
            started = time.perf_counter()
            records = run_suite(
                suite,
                target,
                audit_id="soak",
                concurrency=config.concurrency,
                max_retries=config.max_retries,
                backoff_base_s=backoff_s,
            )
            wall_s = time.perf_counter() - started
        finally:
            close_target(target)
        server_calls = faulty.server.count
    figures = tally(suite, records)
    figures["server_calls"] = server_calls
    figures["wall_s"] = round(wall_s, 2)
    figures["prompts_per_s"] = round(figures["sent"] / wall_s, 1)
    errors = Counter(_cause(r.error) for r in records if r.error is not None)
    figures["failed_by_cause"] = dict(errors)
    return figures


def _cause(error: str) -> str:
    """What made every attempt of an error row fail, from the runner's message."""
    if "no complete answer" in error:
        return "timeout"
    return "reset" if "connection failed" in error else "5xx"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--timeout-s", type=float, default=0.5, help="the target's timeout_s")
    parser.add_argument("--max-retries", type=int, default=3)
    parser.add_argument("--backoff-s", type=float, default=0.2, help="first retry's backoff")
    parser.add_argument("--error-rate", type=float, default=0.08, help="5xx replies")
    parser.add_argument("--timeout-rate", type=float, default=0.04, help="past the timeout")
    parser.add_argument("--reset-rate", type=float, default=0.04, help="TCP resets")
    parser.add_argument("--slow-rate", type=float, default=0.04, help="slow, within the timeout")
    parser.add_argument("--json", type=Path, dest="json_out", help="write the figures here")
    parser.add_argument("--log", type=Path, help="write the runner's JSON log lines here")
    args = parser.parse_args(argv)
    # Every injected fault logs a warning; without a handler Python's last-resort handler would
    # print hundreds of bare event names over the figures.
    logging.getLogger("audit_pipeline").addHandler(logging.NullHandler())
    if args.log:
        add_json_file_handler(args.log)

    figures = soak(
        args.prompts,
        args.concurrency,
        seed=args.seed,
        timeout_s=args.timeout_s,
        max_retries=args.max_retries,
        backoff_s=args.backoff_s,
        error_rate=args.error_rate,
        timeout_rate=args.timeout_rate,
        reset_rate=args.reset_rate,
        slow_rate=args.slow_rate,
    )
    print(
        f"soak: {args.prompts} prompts, concurrency {args.concurrency}, faults "
        f"{args.error_rate:.0%} 5xx + {args.timeout_rate:.0%} past a {args.timeout_s:g} s "
        f"timeout + {args.reset_rate:.0%} resets + {args.slow_rate:.0%} slow, max_retries "
        f"{args.max_retries}, seed {args.seed}"
    )
    causes = ", ".join(f"{n} {cause}" for cause, n in sorted(figures["failed_by_cause"].items()))
    rows = [
        ("sent", figures["sent"]),
        ("completed", figures["completed"]),
        ("failed", f"{figures['failed']}" + (f" ({causes})" if causes else "")),
        ("lost", figures["lost"]),
        ("doubled", figures["doubled"]),
        ("misfiled", figures["misfiled"]),
        ("out of order", figures["out_of_order"]),
        ("retries", figures["retries"]),
        ("server calls", figures["server_calls"]),
        ("prompts/s", figures["prompts_per_s"]),
        ("wall time s", figures["wall_s"]),
    ]
    for label, value in rows:
        print(f"{label:>13}  {value}")
    if args.json_out:
        keys = ("sent", "completed", "failed", "lost", "doubled", "prompts_per_s")
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps({k: figures[k] for k in keys}, indent=2) + "\n")
    broken = figures["lost"] + figures["doubled"] + figures["misfiled"] + figures["out_of_order"]
    if broken or figures["completed"] + figures["failed"] != figures["sent"]:
        raise SystemExit("soak: rows were lost, duplicated, misfiled or out of order")


if __name__ == "__main__":
    main()
