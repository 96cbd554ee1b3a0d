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
from audit_pipeline_tests.helpers import write_audit_config
from benchmarks.chat_server import (
    ChatServer,
    ReceivedRequest,
    ServerReply,
    openai_completion,
)

pytestmark = pytest.mark.slow

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
        private_embeddings=True,  # the embedding cache is one of the files searched for it
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


TOKEN = "tok-7c1e9a2f4b8d6e3a"


@pytest.fixture
def echoing_bot() -> Iterator[ChatServer]:
    """A bot that repeats the bearer token it was sent when asked about encryption."""

    def respond(request: ReceivedRequest) -> ServerReply:
        sent = request.headers.get("authorization", "").removeprefix("Bearer ")
        prompt = str(request.json().get("prompt", ""))
        if "encrypt" in prompt.lower():
            return ServerReply(body={"answer": f"{ANSWER} Debug: session token {sent}."})
        return ServerReply(body={"answer": ANSWER})

    server = ChatServer(respond).start()
    yield server
    server.stop()


def test_a_secret_echoed_in_an_answer_is_redacted_everywhere_and_fails_secret_echo(
    tmp_path: Path, sample_index_dir: Path, echoing_bot: ChatServer
) -> None:
    """The token reaches the bot, comes back in an answer, and is then nowhere: not in DuckDB,
    the cache, the reports, the JSON log, the console or the Dagster run database."""
    import shutil

    from audit_pipeline.warehouse.store import Warehouse
    from audit_pipeline_tests.helpers import REPO_ROOT

    config = write_audit_config(
        tmp_path,
        sample_index_dir,
        private_embeddings=True,  # the embedding cache is one of the files searched for it
        targets={
            "bot": {
                "type": "http",
                "url": echoing_bot.url,
                "answer_path": "$.answer",
                "headers_env": {"Authorization": "Bearer ${AUDIT_TEST_BOT_TOKEN}"},
            }
        },
        defaults={"suite": "security-questionnaire", "target": "bot"},
    )
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(REPO_ROOT / "dagster_instance.yaml", home / "dagster.yaml")
    env = {"AUDIT_TEST_BOT_TOKEN": TOKEN, "DAGSTER_HOME": str(home)}
    args = ("run", "--no-progress", "--id", "ENC-001", "--id", "SOC2-001", "--verbose")
    first = cli(config, *args, env=env)
    again = cli(config, *args, env=env)  # served from the cache this time
    for result in (first, again):
        assert result.returncode in (0, 1), result.stderr
        assert TOKEN not in result.stdout and TOKEN not in result.stderr
    assert {r.headers.get("authorization") for r in echoing_bot.requests} == {f"Bearer {TOKEN}"}

    written = [p for p in tmp_path.rglob("*") if p.is_file() and "vault" not in p.parts]
    assert any(p.suffix == ".db" for p in written)  # the Dagster run storage is searched too
    assert any("cache" in p.parts for p in written)
    assert [p for p in written if TOKEN.encode() in p.read_bytes()] == []

    warehouse = Warehouse(tmp_path / "warehouse" / "audit.duckdb")
    echoed = warehouse.query(
        "SELECT audit_id, prompt_id, passed, detail FROM assertion_results "
        "WHERE assertion = 'secret_echo' ORDER BY audit_id"
    )
    assert echoed["prompt_id"].tolist() == ["ENC-001", "ENC-001"]  # both audits, cache too
    assert not echoed["passed"].any()
    stored = warehouse.scalar("SELECT response FROM responses WHERE prompt_id = 'ENC-001' LIMIT 1")
    assert "[REDACTED: a secret the audit sent]" in stored
