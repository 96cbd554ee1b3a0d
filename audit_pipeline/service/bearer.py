"""The bearer token both network surfaces share: the HTTP API and the MCP server over HTTP.

One rule for both, so neither can be the open door beside the locked one: with a token in
``$AUDIT_API_TOKEN`` every request needs ``Authorization: Bearer <token>`` (``/health`` of the
HTTP API excepted); a token set but blank refuses to start; and a server is never bound to an
address other machines can reach without one (``check_bind``), since the MCP tools and the API
run validations that write the warehouse and read the vault's text back.
"""

from __future__ import annotations

import ipaddress
import json
import os
import secrets
from collections.abc import Collection
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from audit_pipeline.service.errors import ServiceConfigError

TOKEN_ENV = "AUDIT_API_TOKEN"


async def send_json(send: Send, status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
    """One JSON response straight through ASGI (for middleware that answers itself)."""
    payload = json.dumps(body).encode()
    raw_headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
        *((name.lower().encode(), value.encode()) for name, value in headers.items()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": payload})


def read_token(token_env: str = TOKEN_ENV) -> str | None:
    """The configured bearer token; None serves without one. Set but blank is an error: an
    empty ``AUDIT_API_TOKEN`` (a secret that failed to load) must not turn authentication off."""
    token = os.environ.get(token_env)
    if token is not None and not token.strip():
        raise ServiceConfigError(
            f"${token_env} is set but empty: set the token, or unset the variable to serve "
            "without authentication"
        )
    return token.strip() if token is not None else None


def is_loopback(host: str) -> bool:
    """Whether only this machine reaches ``host`` (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None, token_env: str = TOKEN_ENV) -> None:
    """``ServiceConfigError`` for a non-loopback ``host`` without a token: any machine that
    reaches the port could validate (writing audits) and read the vault through the tools."""
    if token is None and not is_loopback(host):
        raise ServiceConfigError(
            f"--host {host} lets other machines connect, and ${token_env} is not set: set a "
            f"bearer token in ${token_env} (callers send 'Authorization: Bearer <token>'), or "
            "bind 127.0.0.1"
        )


def bearer_matches(header: str, token: str) -> bool:
    """``Authorization: Bearer <token>``, the scheme in any case (RFC 7235)."""
    scheme, _, credentials = header.strip().partition(" ")
    return scheme.casefold() == "bearer" and secrets.compare_digest(
        credentials.strip().encode(), token.encode()
    )


class BearerAuth:
    """Every HTTP request but those to ``open_paths`` needs the token: documentation and
    unknown paths alike (a 404 would tell a stranger which routes exist). Lifespan events pass
    through untouched, so a wrapped app still starts and stops its own tasks."""

    def __init__(self, app: ASGIApp, token: str, open_paths: Collection[str] = ()) -> None:
        self.app = app
        self.token = token
        self.open_paths = frozenset(open_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.open_paths:
            await self.app(scope, receive, send)
            return
        header = next(
            (v.decode("latin-1") for k, v in scope["headers"] if k == b"authorization"), ""
        )
        if bearer_matches(header, self.token):
            await self.app(scope, receive, send)
            return
        await send_json(
            send,
            401,
            {"error": "unauthorised", "detail": "missing or wrong bearer token"},
            {"WWW-Authenticate": "Bearer"},
        )
