"""A key in the environment reaches the model server and nowhere else.

A whole audit runs through the CLI against a local OpenAI-compatible server with the key in an
environment variable; afterwards every file the audit wrote (DuckDB and its snapshot, JSON
logs, reports, metrics, the response cache) and the CLI's own output are searched for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.conftest import write_audit_config
from audit_pipeline_tests.targets.chat_server import (
    ChatServer,
    ReceivedRequest,
    ServerReply,
    openai_completion,
)

SECRET = "sk-audit-test-5f2b9c1e7d4a0b6e"
ANSWER = (
    "Customer data is encrypted at rest with AES-256-GCM. "
    "[source: encryption-standard.md#2. Encryption at Rest]"
)


@pytest.fixture
def model_server() -> Iterator[ChatServer]:
    def respond(request: ReceivedRequest) -> ServerReply:
        return ServerReply(body=openai_completion(ANSWER))

    server = ChatServer(respond).start()
    yield server
    server.stop()


def test_the_key_is_used_but_never_stored_logged_or_reported(
    tmp_path: Path, sample_index_dir: Path, model_server: ChatServer
) -> None:
    config = write_audit_config(
        tmp_path,
        sample_index_dir,
        targets={
            "gpt": {
                "type": "litellm",
                "model": "openai/local-model",
                "api_base": f"{model_server.url}/v1",
                "api_key_env": "AUDIT_TEST_KEY",
            }
        },
        defaults={"suite": "security-questionnaire", "target": "gpt"},
    )
    result = cli(
        config,
        "run",
        "--id",
        "ENC-001",
        "--id",
        "ADV-003",
        "--verbose",
        env={"AUDIT_TEST_KEY": SECRET},
    )
    assert result.returncode in (0, 1), result.stderr
    authorizations = {r.headers.get("authorization") for r in model_server.requests}
    assert authorizations == {f"Bearer {SECRET}"}  # the key did reach the model server

    assert SECRET not in result.stdout and SECRET not in result.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file() and "vault" not in p.parts]
    kinds = {p.suffix for p in written}
    assert {".duckdb", ".jsonl", ".html", ".md", ".prom"} <= kinds
    assert any("cache" in p.parts for p in written)
    leaking = [p for p in written if SECRET.encode() in p.read_bytes()]
    assert leaking == []
