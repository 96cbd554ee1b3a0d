"""``audit-pipeline serve`` (HTTP API) and ``audit-pipeline mcp`` (MCP server).

The CLI's entry to the service (here, not in ``commands/``: the service runs audits through
``commands``, so it sits above them). Both listen on 127.0.0.1 by default: a validation
service reads the vault and writes the warehouse, and binding elsewhere is a deliberate
choice (``--host``) that needs the bearer token in ``$AUDIT_API_TOKEN``, which both surfaces
then ask every caller for (``bearer.py``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from audit_pipeline.commands.preflight import UsageError


def add_parsers(sub: Any) -> None:
    serve = sub.add_parser(
        "serve",
        help="serve POST /evaluate, POST /validate, POST /marks, the reports, GET /health",
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    mcp = sub.add_parser("mcp", help="serve validate_answer and search_vault over MCP")
    mcp.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    mcp.add_argument("--host", default="127.0.0.1", help="with --transport http")
    mcp.add_argument("--port", type=int, default=8001, help="with --transport http")


def _check_port(port: int) -> None:
    if not 1 <= port <= 65535:
        raise UsageError(f"--port must be between 1 and 65535, not {port}")


def serve_command(args: argparse.Namespace, config_path: Path) -> int:
    from audit_pipeline.service.errors import ServiceConfigError
    from audit_pipeline.service.http_api import serve

    _check_port(args.port)
    try:
        serve(config_path, args.host, args.port)
    except ServiceConfigError as error:
        raise UsageError(str(error)) from None
    return 0


def mcp_command(args: argparse.Namespace, config_path: Path) -> int:
    from audit_pipeline.service.errors import ServiceConfigError
    from audit_pipeline.service.mcp_server import run

    _check_port(args.port)
    try:
        run(config_path, args.transport, args.host, args.port)
    except ServiceConfigError as error:
        raise UsageError(str(error)) from None
    return 0
