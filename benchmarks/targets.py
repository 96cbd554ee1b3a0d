"""Throughput of the target runner against a chat endpoint with fixed latency.

A real HTTP server on 127.0.0.1 answers every request after ``--latency-ms``; the suite goes
through the ``http`` target at several concurrency levels. With calls that only wait, the
ideal rate is concurrency / latency; the ratio to it shows what the runner, httpx and the
thread pool cost.

    .venv/bin/python -m benchmarks.targets [--prompts 240] [--latency-ms 50] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from audit_pipeline.suites import PromptSuite
from audit_pipeline.targets import build_target, close_target, parse_target_config, run_suite
from benchmarks.chat_server import ChatServer, ReceivedRequest, ServerReply
from benchmarks.synthetic import synthetic_suite

QUESTION = "Synthetic security question number {index}?"
CONCURRENCY_LEVELS = (1, 4, 16)


def measure(suite: PromptSuite, url: str, concurrency: int, latency_s: float) -> dict[str, Any]:
    config = parse_target_config(
        "bench",
        {
            "type": "http",
            "url": url,
            "request_template": {"message": "{{prompt}}", "history": "{{history}}"},
            "answer_path": "answer",
            "concurrency": concurrency,
        },
    )
    target = build_target("bench", config)
    try:
        started = time.perf_counter()
        records = run_suite(suite, target, audit_id="bench", concurrency=concurrency)
        elapsed = time.perf_counter() - started
    finally:
        close_target(target)
    failed = [record for record in records if record.error]
    if failed:
        raise SystemExit(f"{len(failed)} calls failed, first: {failed[0].error}")
    rate = len(records) / elapsed
    ideal = concurrency / latency_s
    return {
        "concurrency": concurrency,
        "prompts_per_s": round(rate, 2),
        "ideal_prompts_per_s": round(ideal, 2),
        "ratio": round(rate / ideal, 3),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=240)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--json", type=Path, dest="json_out", help="write results here")
    args = parser.parse_args(argv)
    latency_s = args.latency_ms / 1000

    def respond(request: ReceivedRequest) -> ServerReply:
        return ServerReply(body={"answer": f"echo: {request.json()['message']}"}, delay_s=latency_s)

    suite = synthetic_suite(args.prompts, "benchmark", "BENCH", QUESTION)
    server = ChatServer(respond).start()
    try:
        url = f"{server.url}/api/chat"
        measure(
            synthetic_suite(8, "benchmark", "BENCH", QUESTION),
            url,
            4,
            latency_s,
        )  # warm-up: imports, first connections
        results = [measure(suite, url, level, latency_s) for level in CONCURRENCY_LEVELS]
    finally:
        server.stop()

    print(f"{args.prompts} prompts, server latency {args.latency_ms:g} ms, http target")
    print(f"{'concurrency':>11}  {'prompts/s':>10}  {'ideal':>8}  {'ratio':>6}")
    for row in results:
        print(
            f"{row['concurrency']:>11}  {row['prompts_per_s']:>10.1f}  "
            f"{row['ideal_prompts_per_s']:>8.1f}  {row['ratio']:>6.3f}"
        )
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps({"results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
