"""The HTTP API (seed 002): ``GET /health``, ``POST /evaluate``, ``POST /validate``; analysts'
marks (``POST /marks``) and the served reports (``marks_api.py``).

FastAPI validates request bodies against ``requests.py`` (422 names the field, never echoes
the value); a body above ``service.max_body_bytes`` is refused with 413 before it is parsed.
With a bearer token in ``$AUDIT_API_TOKEN`` every route but ``/health`` needs it, the
documentation and ``/openapi.json`` included; a token set but empty refuses to start rather
than serve without one. Validations run in the bounded worker pool (``pool.py``): 503 with
``Retry-After`` when it is full, 504 past the time budget. Audits run one at a time: a second
``/evaluate`` gets 503 with ``Retry-After`` set to the running audit's expected remaining time
(``audit_clock.py``). The models load on the first
validation, not at start, so ``/health`` answers at once.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from http import HTTPStatus
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from audit_pipeline.config import load_config
from audit_pipeline.service.audit_clock import AuditClock
from audit_pipeline.service.bearer import TOKEN_ENV, BearerAuth, check_bind, read_token, send_json
from audit_pipeline.service.errors import (
    Busy,
    InvalidFields,
    ServiceError,
    public_message,
    refusal,
)
from audit_pipeline.service.evaluate import evaluate, resolve_config
from audit_pipeline.service.gateway import ValidationGateway
from audit_pipeline.service.marks_api import add_mark_routes
from audit_pipeline.service.requests import EvaluateRequest, ValidateRequest, check_evaluate

OPEN_PATHS = frozenset({"/health"})


class BodyLimit:
    """Bodies above ``max_bytes`` get 413 before anything parses them (and nothing of them
    comes back); the body is read here, up to the limit, and handed on."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def _refuse(self, send: Send) -> None:
        await send_json(
            send,
            413,
            {
                "error": "too_large",
                "detail": f"request body larger than {self.max_bytes} bytes "
                "(service.max_body_bytes)",
            },
            {"Connection": "close"},
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = next((v for k, v in scope["headers"] if k == b"content-length"), None)
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        whole: Message | None = {"type": "http.request", "body": b"".join(chunks)}

        async def replay() -> Message:
            nonlocal whole
            if whole is not None:
                message, whole = whole, None
                return message
            return await receive()

        await self.app(scope, replay, send)


def _error_response(error: ServiceError, base: Path) -> JSONResponse:
    """The answer to a refused request: ``{"error": code, "detail": reason}``, the reason a
    list of fields as FastAPI gives it for a 422."""
    detail: Any
    if isinstance(error, InvalidFields):
        detail = [
            {"loc": ["body", *p.loc], "msg": p.message, "type": p.kind} for p in error.problems
        ]
    else:
        detail = public_message(error.message, base)
    return JSONResponse({"error": error.code, "detail": detail}, error.status, error.headers())


def create_app(config_path: Path, token_env: str = TOKEN_ENV) -> FastAPI:
    """The API for the configuration at ``config_path`` (also /evaluate's default).

    Raises ``ServiceConfigError`` for an empty token and ``ConfigError`` for a configuration
    that does not load.
    """
    config_path = config_path.resolve()
    base = config_path.parent
    config = load_config(config_path)
    settings = config.service
    token = read_token(token_env)
    gateway = ValidationGateway(config_path, settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        gateway.pool.shutdown()

    app = FastAPI(title="audit-pipeline", version="1", lifespan=lifespan)
    app.state.gateway = gateway
    evaluating = threading.Lock()
    clock = AuditClock()  # the running audit's expected remaining time, for Retry-After

    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    if token is not None:
        app.add_middleware(BearerAuth, token=token, open_paths=OPEN_PATHS)

    @app.exception_handler(ServiceError)
    async def service_error(_: Request, error: ServiceError) -> JSONResponse:
        return _error_response(error, base)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, error: StarletteHTTPException) -> JSONResponse:
        # Starlette's own refusals (unknown route, wrong method, unparseable body) in the
        # same shape as the service's.
        code = HTTPStatus(error.status_code).phrase.lower().replace(" ", "_").replace("-", "_")
        return JSONResponse(
            {"error": code, "detail": error.detail}, error.status_code, error.headers
        )

    @app.exception_handler(RequestValidationError)
    async def invalid_body(_: Request, error: RequestValidationError) -> JSONResponse:
        return _error_response(refusal(error.errors(), skip=1), base)

    @app.exception_handler(Exception)
    async def unexpected(_: Request, error: Exception) -> JSONResponse:
        # Starlette logs the traceback after this answer: the caller gets no part of it.
        return JSONResponse(
            {"error": "internal", "detail": "internal error (the server log has the details)"},
            500,
        )

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/evaluate")
    async def evaluate_endpoint(body: EvaluateRequest) -> Any:
        check_evaluate(body)
        path = resolve_config(base, config_path, body.config_path)
        if not evaluating.acquire(blocking=False):
            remaining = math.ceil(clock.remaining_s())
            raise Busy(
                f"busy: an audit is running (one at a time), expected to finish in about "
                f"{remaining} s",
                remaining,
            )

        def run() -> dict[str, Any]:
            clock.start(path)
            try:  # released here, not by the request: a caller that hangs up ends no audit
                return evaluate(path, body.target, body.suite)
            finally:
                clock.stop()
                evaluating.release()

        return await asyncio.to_thread(run)

    @app.post("/validate")
    async def validate_endpoint(body: ValidateRequest) -> Any:
        return await gateway.validate(body)

    # Analysts' marks and the served reports (their Basic sign-in wraps the token check).
    add_mark_routes(app, config, token)
    return app


def serve(config_path: Path, host: str, port: int) -> None:
    """Serve the API; ``ServiceConfigError`` before anything listens for a blank token or a
    non-loopback ``host`` without one (``bearer.check_bind``)."""
    import uvicorn

    check_bind(host, read_token(TOKEN_ENV))
    uvicorn.run(create_app(config_path), host=host, port=port, log_level="info")
