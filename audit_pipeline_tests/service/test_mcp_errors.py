"""MCP tool errors carry the reason the HTTP API gives for the same request (not a bare
"Error executing tool"), unknown arguments are refused, and no rejected value is echoed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from audit_pipeline_tests.helpers import write_audit_config
from audit_pipeline_tests.service.servers import running_api, running_mcp_http

pytestmark = pytest.mark.slow

REFUSED: list[dict[str, Any]] = [
    {"question": "   ", "answer": "x"},
    {"question": "q", "answer": "a" * 5_000_000},
    {"question": "q", "answer": "x", "sources": ["s"] * 51},
    {"question": "q", "answer": "x", "admin": True},
    {"question": "what\x00", "answer": "x"},
]


def _http_reason(reply: httpx.Response) -> str:
    detail = reply.json()["detail"]
    if isinstance(detail, str):
        return detail
    return "; ".join(
        f"{'.'.join(str(part) for part in item['loc'][1:])}: {item['msg']}" for item in detail
    )


def test_tool_errors_give_the_http_reason(tmp_path: Path, sample_index_dir: Path) -> None:
    config = write_audit_config(tmp_path, sample_index_dir, service={"max_body_bytes": 6_000_000})
    with running_api(config) as api:
        http_reasons = [
            _http_reason(
                httpx.post(
                    f"{api.url}/validate",
                    content=json.dumps(arguments),
                    headers={"Content-Type": "application/json"},
                    timeout=30,
                )
            )
            for arguments in REFUSED
        ]

    async def call_all(url: str) -> tuple[list[Any], Any, dict[str, Any]]:
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            schemas = {t.name: t.input_schema for t in (await session.list_tools()).tools}
            results = [await session.call_tool("validate_answer", a) for a in REFUSED]
            search = await session.call_tool("search_vault", {"query": "TLS", "k": 0})
            return results, search, schemas

    with running_mcp_http(config) as url:
        results, search, schemas = anyio.run(call_all, url)

    assert all(schema["additionalProperties"] is False for schema in schemas.values())
    for arguments, result, reason in zip(REFUSED, results, http_reasons, strict=True):
        assert result.is_error, arguments
        [content] = result.content
        assert content.text == f"Error executing tool validate_answer: {reason}"
        assert len(content.text) < 500  # the 5 MB answer is not echoed
    assert "question: must not be blank" in results[0].content[0].text
    assert "answer: String should have at most 100000 characters" in results[1].content[0].text
    assert "admin: Extra inputs are not permitted" in results[3].content[0].text
    assert "question: holds an invalid character" in results[4].content[0].text
    assert search.is_error
    assert search.content[0].text == (
        "Error executing tool search_vault: k: Input should be greater than or equal to 1"
    )
