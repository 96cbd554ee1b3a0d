"""The MCP server (seed 003): tools ``validate_answer`` and ``search_vault``.

Built with the official ``mcp`` SDK (2.x, ``MCPServer``); served over stdio for a local client
or streamable HTTP on 127.0.0.1, where it needs the HTTP API's bearer token when
``$AUDIT_API_TOKEN`` is set and refuses any other address without one (``bearer.py``). Tool
results are the same dictionaries ``POST /validate`` returns, and every validation is recorded
as an ``interactive`` audit.

The tools take the HTTP API's fields with its limits (``requests.py``) and go through the same
gateway, so a refusal reads the same on both surfaces: the SDK turns a ``ToolError`` into an
error result carrying its message, while any other exception reaches the client as a bare
"Error executing tool" (the reason left in the server's log), so every ``ServiceError`` is
raised as a ``ToolError``. The SDK ignores arguments a tool does not declare; here they are
refused (``admin: true`` is a mistake to report, not to drop).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.types import ASGIApp

from audit_pipeline.config import ServiceSettings, load_config
from audit_pipeline.service.bearer import TOKEN_ENV, BearerAuth, check_bind, read_token
from audit_pipeline.service.errors import ServiceError, refusal
from audit_pipeline.service.gateway import ValidationGateway
from audit_pipeline.service.requests import (
    Answer,
    K,
    Query,
    Question,
    SearchRequest,
    Sources,
    ValidateRequest,
)

T = TypeVar("T")


def _strict(tool: Tool) -> Tool:
    """``tool`` with an argument model that refuses undeclared arguments (and says so in its
    input schema: ``additionalProperties: false``)."""
    loose = tool.fn_metadata.arg_model
    strict = cast(
        type[BaseModel],
        type(loose.__name__, (loose,), {"model_config": ConfigDict(extra="forbid")}),
    )
    metadata = tool.fn_metadata.model_copy(update={"arg_model": strict})
    return tool.model_copy(
        update={"fn_metadata": metadata, "parameters": strict.model_json_schema(by_alias=True)}
    )


async def _answer(call: Callable[[], Awaitable[T]]) -> T:
    try:
        return await call()
    except ServiceError as error:
        raise ToolError(error.message) from None


class _Server(MCPServer):
    """``MCPServer`` whose argument errors read like the HTTP API's 422 (``question: String
    should have at least 1 character``), without the SDK's echo of the rejected value."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if type(error) is ToolError and isinstance(cause, ValidationError):
                reason = refusal(cause.errors(include_input=False, include_url=False)).message
                raise ToolError(f"Error executing tool {name}: {reason}") from cause
            raise


def build_server(config_path: Path, settings: ServiceSettings | None = None) -> MCPServer:
    config_path = config_path.resolve()
    gateway = ValidationGateway(config_path, settings or load_config(config_path).service)

    async def validate_answer(
        question: Question, answer: Answer, sources: Sources = None
    ) -> dict[str, Any]:
        """Validate an answer: each claim with its span, verdict and provenance, the Self-RAG
        checks (isrel, issup, isuse), confidence and recommendation. Without sources the
        trusted vault is searched."""
        request = ValidateRequest(question=question, answer=answer, sources=sources)
        return await _answer(lambda: gateway.validate(request))

    async def search_vault(query: Query, k: K = 5) -> list[dict[str, Any]]:
        """The k vault chunks that best match the query (hybrid vector + full-text search)."""
        request = SearchRequest(query=query, k=k)
        return await _answer(lambda: gateway.search(request))

    return _Server(
        "audit-pipeline",
        instructions="Validate an answer against the trusted vault (or given sources) before "
        "returning it: claims with spans and verdicts, Self-RAG checks, confidence and an "
        "accept / retry / reject recommendation.",
        tools=[_strict(Tool.from_function(fn)) for fn in (validate_answer, search_vault)],
    )


def run(config_path: Path, transport: str, host: str, port: int) -> None:
    """Serve over stdio, or streamable HTTP on ``host:port``. Over HTTP the server is locked
    as the HTTP API is (``bearer.py``): ``ServiceConfigError`` before anything listens for a
    blank token or a non-loopback ``host`` without one."""
    token = read_token(TOKEN_ENV) if transport != "stdio" else None
    if transport != "stdio":
        check_bind(host, token)
    settings = load_config(config_path).service
    server = build_server(config_path, settings)
    if transport == "stdio":
        server.run("stdio")
        return
    import uvicorn

    # The SDK's own body limit (4 MiB) would refuse what the HTTP API accepts. Its host check
    # (DNS rebinding protection) stays as the SDK sets it: on for a loopback host.
    app: ASGIApp = server.streamable_http_app(
        host=host, max_request_body_size=settings.max_body_bytes
    )
    if token is not None:
        app = BearerAuth(app, token)
    uvicorn.run(app, host=host, port=port, log_level=server.settings.log_level.lower())
