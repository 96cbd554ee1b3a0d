"""MCP over HTTP is locked like the HTTP API (issue 33, row 3): with ``$AUDIT_API_TOKEN`` set,
the official SDK client gets nothing without the token (no tool list, no validation written,
no vault text) and everything with it; neither server binds an address other machines reach
without a token."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.helpers import write_audit_config
from audit_pipeline_tests.service.servers import running_mcp_http

TOKEN = "s3cret-token"


async def _tools_and_search(url: str, headers: dict[str, str]) -> tuple[set[str], list]:
    async with (
        create_mcp_http_client(headers=headers) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        found = await session.call_tool("search_vault", {"query": "TLS version", "k": 2})
        assert not found.is_error, found.content
        return tools, found.content


@pytest.mark.slow
def test_the_sdk_client_needs_the_token(tmp_path: Path, sample_index_dir: Path) -> None:
    config = write_audit_config(tmp_path, sample_index_dir)
    with running_mcp_http(config, env={"AUDIT_API_TOKEN": TOKEN}) as url:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            # The SDK reports the refusal as a failed initialisation (an error group).
            with pytest.raises(Exception):  # noqa: B017
                anyio.run(_tools_and_search, url, headers)
            bare = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            assert bare.status_code == 401
            assert bare.headers["www-authenticate"] == "Bearer"
        # Nothing the refused callers sent reached the service: it never even opened the
        # warehouse (a validation would have recorded an audit there).
        assert not (tmp_path / "warehouse" / "audit.duckdb").exists()
        tools, hits = anyio.run(_tools_and_search, url, {"Authorization": f"bearer {TOKEN}"})
    assert {"validate_answer", "search_vault"} <= tools
    assert hits  # the vault's text, to the caller with the token only


@pytest.mark.parametrize(
    "command",
    [("mcp", "--transport", "http", "--host", "0.0.0.0"), ("serve", "--host", "0.0.0.0")],
)
def test_no_token_no_binding_beyond_loopback(
    tmp_path: Path, sample_index_dir: Path, command: tuple[str, ...]
) -> None:
    config = write_audit_config(tmp_path, sample_index_dir)
    refused = cli(config, *command, "--port", "1", unset=["AUDIT_API_TOKEN"], timeout=120)
    assert refused.returncode == 2, refused.stderr
    [line] = refused.stderr.strip().splitlines()
    assert line.startswith("error: --host 0.0.0.0 lets other machines connect")
    assert "$AUDIT_API_TOKEN is not set" in line
