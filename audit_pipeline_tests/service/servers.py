"""The service's servers for its tests: the HTTP API on a real uvicorn server and the MCP
server over streamable HTTP in a child process, both on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import uvicorn
from fastapi import FastAPI

from audit_pipeline.service.http_api import create_app


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class RunningApi:
    url: str
    app: FastAPI


@contextmanager
def running_api(config: Path) -> Iterator[RunningApi]:
    """``create_app(config)`` served on a free port until the block ends."""
    app = create_app(config)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    try:
        yield RunningApi(f"http://127.0.0.1:{port}", app)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def child_environment() -> dict[str, str]:
    """This environment for a server process, offline and outside any Dagster home."""
    env = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
    env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", HF_HUB_OFFLINE="1")
    return env


@contextmanager
def running_mcp_http(config: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    """``audit-pipeline mcp --transport http`` on a free port (``env`` added to its
    environment); yields the endpoint's URL."""
    port = free_port()
    command = [sys.executable, "-m", "audit_pipeline.cli", "--config", str(config), "mcp"]
    command += ["--transport", "http", "--port", str(port)]
    process = subprocess.Popen(
        command,
        env={**child_environment(), **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                assert process.poll() is None, "the MCP server exited"
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)
