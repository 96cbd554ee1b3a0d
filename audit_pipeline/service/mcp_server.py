"""The MCP server (seed 003): tools ``validate_answer`` and ``search_vault``.

Built with the official ``mcp`` SDK (2.x, ``MCPServer``); served over stdio for a local client
or streamable HTTP on 127.0.0.1. Tool results are the same dictionaries ``POST /validate``
returns, and every validation is recorded as an ``interactive`` audit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

from audit_pipeline.service.lazy_service import LazyValidationService


def build_server(config_path: Path) -> MCPServer:
    config_path = config_path.resolve()
    server = MCPServer(
        "audit-pipeline",
        instructions="Validate an answer against the trusted vault (or given sources) before "
        "returning it: claims with spans and verdicts, Self-RAG checks, confidence and an "
        "accept / retry / reject recommendation.",
    )
    service = LazyValidationService(config_path)

    @server.tool()
    def validate_answer(
        question: str, answer: str, sources: list[str] | None = None
    ) -> dict[str, Any]:
        """Validate an answer: each claim with its span, verdict and provenance, the Self-RAG
        checks (isrel, issup, isuse), confidence and recommendation. Without sources the
        trusted vault is searched."""
        return service().validate(question, answer, sources)

    @server.tool()
    def search_vault(query: str, k: int = 5) -> list[dict[str, Any]]:
        """The k vault chunks that best match the query (hybrid vector + full-text search)."""
        return service().search(query, k)

    return server


def run(config_path: Path, transport: str, host: str, port: int) -> None:
    server = build_server(config_path)
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port)
