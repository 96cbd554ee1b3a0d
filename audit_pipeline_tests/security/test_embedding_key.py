"""A provider's embedding key reaches the embedding server and nowhere else.

A whole audit runs through the CLI with ``embedding.provider: litellm``, the key in an
environment variable named by ``embedding.api_key_env`` (a Dagster ``EnvVar`` in the resources),
against an OpenAI-compatible embeddings server on 127.0.0.1: the vault is re-embedded with the
provider's model, the evidence stage searches with it, and afterwards every file the audit
wrote (DuckDB, the CLI's own Dagster instance, logs, reports, metrics, the cache) and the CLI's
output are searched for the key.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.embeddings_server import EmbeddingsServer
from audit_pipeline_tests.helpers import write_audit_config

pytestmark = pytest.mark.slow

SECRET = "sk-embed-test-3e5a7c9b1d2f4a6c"
MODEL = "openai/hash-embed"


def test_audit_retrieves_with_the_provider_and_the_key_stays_secret(
    tmp_path: Path, sample_index_dir: Path, embeddings_server: EmbeddingsServer
) -> None:
    embedding = {
        "provider": "litellm",
        "model": MODEL,
        "api_key_env": "AUDIT_TEST_EMBEDDING_KEY",
        "api_base": embeddings_server.api_base,
    }
    config = write_audit_config(
        tmp_path, sample_index_dir, private_embeddings=True, embedding=embedding
    )
    run = ("run", "--no-progress", "--id", "IR-002", "--report-only", "--verbose")

    unset = cli(config, *run)
    assert unset.returncode == 2 and embeddings_server.count == 0
    assert "embedding.api_key_env names AUDIT_TEST_EMBEDDING_KEY, which is not set" in (
        unset.stderr
    )

    result = cli(config, *run, env={"AUDIT_TEST_EMBEDDING_KEY": SECRET})
    assert result.returncode == 0, result.stderr
    assert {r.headers.get("authorization") for r in embeddings_server.server.requests} == {
        f"Bearer {SECRET}"
    }
    # The MiniLM index was replaced by one in the provider's model and dimension...
    table = VaultIndex(tmp_path / "warehouse" / "vault.lance", None).table()  # type: ignore[arg-type]
    assert table.schema.field("vector").type.list_size == 48
    assert "vault  " in result.stdout and "embedded, 0 reused" in result.stdout
    # ...and the evidence stage searched it (IR-002 was recorded without its context) with
    # query vectors from the provider.
    sent = [text for batch in embeddings_server.inputs() for text in batch]
    assert len(sent) > table.count_rows()

    assert SECRET not in result.stdout and SECRET not in result.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file() and "vault" not in p.parts]
    assert any(p.suffix == ".db" for p in written)  # the CLI's own Dagster instance
    assert [p for p in written if SECRET.encode() in p.read_bytes()] == []
