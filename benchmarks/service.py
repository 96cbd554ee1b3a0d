"""Latency of the validation service under concurrent load, on a real server.

``audit-pipeline serve`` runs in a child process on 127.0.0.1 over a copy of the sample vault
(indexed here first). After one warm-up validation (the models load), it sends 50 ``POST
/validate`` requests at once, each a different one-sentence answer, first with the caller's
sources and then searching the vault, and reports each burst's latencies (p50, p95, max), wall
time and status codes. Then one answer of 100,000 characters (~1,700 claims), capped at
``detection.max_claims_per_answer``, with a small validation sent while it runs: how long the
long one takes, and whether the small one waits behind it.

    .venv/bin/python -m benchmarks.service [--requests 50] [--workers 4] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import yaml

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.vault.chunking import chunk_documents
from audit_pipeline.vault.documents import scan_vault

REPOSITORY = Path(__file__).resolve().parents[1]
SAMPLE_VAULT = REPOSITORY / "data" / "sample-vault"
SOURCES = [
    "Production databases take a full snapshot every day. Transaction logs are archived "
    "continuously, which allows point-in-time recovery to any moment in the last 7 days.",
    "The recovery point objective (RPO) of the Ledger module is 1 hour and the recovery time "
    "objective (RTO) is 4 hours.",
]
QUESTION = "How far back can we recover production databases?"
LONG_ANSWER = " ".join(
    f"Backups of region {n} are kept for {n % 90 + 1} days." for n in range(2400)
)[:100_000]


def _answer(number: int) -> str:
    return f"Point-in-time recovery is possible to any moment in the last {number + 2} days."


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _workspace(root: Path, workers: int) -> Path:
    vault = root / "vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    index = root / "warehouse" / "vault.lance"
    VaultIndex(index, SentenceTransformerEmbedder()).sync(
        chunk_documents(scan_vault(vault).documents)
    )
    config = {
        "vault": {"path": str(vault)},
        "storage": {
            "duckdb_path": str(root / "warehouse" / "audit.duckdb"),
            "lancedb_path": str(index),
            "embedding_cache": str(root / "warehouse" / "embeddings.sqlite"),
        },
        "service": {"workers": workers},
    }
    path = root / "audit.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _serve(config: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    environment = {k: v for k, v in os.environ.items() if k not in {"DAGSTER_HOME"}}
    environment.update(HF_HUB_OFFLINE="1", LITELLM_LOCAL_MODEL_COST_MAP="True")
    environment.pop("AUDIT_API_TOKEN", None)
    command = [sys.executable, "-m", "audit_pipeline.cli", "--config", str(config)]
    process = subprocess.Popen(
        [*command, "serve", "--port", str(port)],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.2)
    process.terminate()
    raise SystemExit("the server did not start")


async def _timed(client: httpx.AsyncClient, body: dict[str, Any]) -> tuple[float, int, Any]:
    started = time.perf_counter()
    reply = await client.post("/validate", json=body)
    return time.perf_counter() - started, reply.status_code, reply.json()


async def _burst(client: httpx.AsyncClient, count: int, with_sources: bool) -> dict[str, Any]:
    bodies = [
        {
            "question": QUESTION,
            "answer": _answer(n),
            **({"sources": SOURCES} if with_sources else {}),
        }
        for n in range(count)
    ]
    started = time.perf_counter()
    results = await asyncio.gather(*(_timed(client, body) for body in bodies))
    wall = time.perf_counter() - started
    latencies = [latency for latency, status, _ in results if status == 200]
    return {
        "requests": count,
        "evidence": "given sources" if with_sources else "vault search",
        "statuses": dict(Counter(status for _, status, _ in results)),
        "wall_s": round(wall, 2),
        "p50_s": round(percentile(latencies, 0.5), 2) if latencies else None,
        "p95_s": round(percentile(latencies, 0.95), 2) if latencies else None,
        "max_s": round(max(latencies), 2) if latencies else None,
    }


async def _long_answer(client: httpx.AsyncClient) -> dict[str, Any]:
    long_body = {"question": QUESTION, "answer": LONG_ANSWER, "sources": SOURCES}
    small_body = {"question": QUESTION, "answer": _answer(100), "sources": SOURCES}
    long_task = asyncio.create_task(_timed(client, long_body))
    await asyncio.sleep(0.2)  # the long one is in: does the small one wait behind it?
    small_latency, small_status, _ = await _timed(client, small_body)
    long_latency, long_status, body = await long_task
    return {
        "answer_chars": len(LONG_ANSWER),
        "status": long_status,
        "seconds": round(long_latency, 2),
        "claims_checked": len(body.get("claims", [])) if long_status == 200 else None,
        "notes": body.get("notes") if long_status == 200 else body,
        "small_validation_meanwhile_s": round(small_latency, 2),
        "small_status": small_status,
    }


async def _measure(url: str, count: int) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=count + 10, max_keepalive_connections=count + 10)
    async with httpx.AsyncClient(base_url=url, timeout=600, limits=limits) as client:
        started = time.perf_counter()
        _, status, body = await _timed(
            client, {"question": QUESTION, "answer": _answer(0), "sources": SOURCES}
        )
        if status != 200:
            raise SystemExit(f"warm-up validation failed: {status} {body}")
        warm_up = time.perf_counter() - started
        given = await _burst(client, count, with_sources=True)
        vault = await _burst(client, count, with_sources=False)
        long = await _long_answer(client)
    return {"first_validation_s": round(warm_up, 2), "bursts": [given, vault], "long_answer": long}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50, help="requests sent at once")
    parser.add_argument("--workers", type=int, default=4, help="service.workers")
    parser.add_argument("--json", type=Path, dest="json_out", help="write results here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="service-bench-") as folder:
        config = _workspace(Path(folder), args.workers)
        process, url = _serve(config)
        try:
            results = asyncio.run(_measure(url, args.requests))
        finally:
            process.terminate()
            process.wait(timeout=30)
    results["workers"] = args.workers
    print(f"first validation (models load): {results['first_validation_s']} s")
    for burst in results["bursts"]:
        print(
            f"{burst['requests']} concurrent /validate ({burst['evidence']}, workers "
            f"{args.workers}): p50 {burst['p50_s']} s, p95 {burst['p95_s']} s, max "
            f"{burst['max_s']} s, all done in {burst['wall_s']} s, statuses {burst['statuses']}"
        )
    long = results["long_answer"]
    print(
        f"100,000-character answer: {long['status']} in {long['seconds']} s, "
        f"{long['claims_checked']} claims checked ({long['notes']}); a small validation sent "
        f"meanwhile: {long['small_status']} in {long['small_validation_meanwhile_s']} s"
    )
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
