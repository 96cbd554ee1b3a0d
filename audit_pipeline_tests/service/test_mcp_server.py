"""The MCP server through the official SDK's client: stdio (a subprocess) and streamable HTTP
on 127.0.0.1."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.helpers import write_audit_config
from audit_pipeline_tests.service.servers import child_environment, running_mcp_http
from audit_pipeline_tests.validation.sample_sources import BACKUP_SOURCES

pytestmark = pytest.mark.slow

CHANGED = "Point-in-time recovery is possible to any moment in the last 30 days."
# The first call loads the verifier's models in the server process; on 2 cores shared with the
# other test worker that passed the default 30 s budget. These tests are about the transports;
# the budget's own behaviour is tested in test_budget_binds_work and test_http_limits.
SERVICE = {"time_budget_s": 300}


def _payload(result) -> object:  # type: ignore[no-untyped-def]
    assert not result.is_error, result.content
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content)
    return json.loads(result.content[0].text)


async def _exercise(session: ClientSession) -> tuple[dict, list]:
    await session.initialize()
    tools = {tool.name for tool in (await session.list_tools()).tools}
    assert {"validate_answer", "search_vault"} <= tools
    validated = _payload(
        await session.call_tool(
            "validate_answer",
            {
                "question": "How far back can we recover?",
                "answer": CHANGED,
                "sources": BACKUP_SOURCES,
            },
        )
    )
    hits = _payload(await session.call_tool("search_vault", {"query": "TLS version", "k": 3}))
    return validated, hits


def _check(validated: dict, hits: list, config_root: Path) -> None:
    [claim] = validated["claims"]
    assert claim["label"] == "contradicted"
    assert CHANGED[claim["start"] : claim["end"]] == claim["text"]
    assert validated["recommendation"] == "reject"
    assert {"isrel", "issup", "isuse", "confidence"} <= set(validated)
    assert len(hits) == 3 and all(hit["document"].endswith(".md") for hit in hits)
    store = Warehouse(config_root / "warehouse" / "audit.duckdb")
    target = store.scalar("SELECT target FROM audits WHERE audit_id = ?", [validated["audit_id"]])
    assert target == "interactive"


def test_stdio_client_gets_a_contradicted_verdict(tmp_path: Path, sample_index_dir: Path) -> None:
    config = write_audit_config(tmp_path, sample_index_dir, service=SERVICE)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "audit_pipeline.cli", "--config", str(config), "mcp"],
        env=child_environment(),
    )

    async def main() -> tuple[dict, list]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            return await _exercise(session)

    validated, hits = anyio.run(main)
    _check(validated, hits, tmp_path)


def test_streamable_http_on_localhost(tmp_path: Path, sample_index_dir: Path) -> None:
    config = write_audit_config(tmp_path, sample_index_dir, service=SERVICE)
    with running_mcp_http(config) as url:

        async def main() -> tuple[dict, list]:
            async with (
                streamable_http_client(url) as (read, write),
                ClientSession(read, write) as session,
            ):
                return await _exercise(session)

        validated, hits = anyio.run(main)
    _check(validated, hits, tmp_path)
