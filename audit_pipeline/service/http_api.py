"""The HTTP API (seed 002): ``GET /health``, ``POST /evaluate``, ``POST /validate``.

FastAPI validates request bodies (422 names the field); an optional bearer token, read from an
environment variable, guards everything but ``/health``. The models load on the first
validation, not at start, so ``/health`` answers at once.
"""

from __future__ import annotations

import os
import secrets
import threading
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from audit_pipeline.service.evaluate import EvaluateError, evaluate, resolve_config
from audit_pipeline.service.lazy_service import LazyValidationService

TOKEN_ENV = "AUDIT_API_TOKEN"


class EvaluateRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    config_path: str | None = None
    target: str | None = None
    suite: str | None = None


class ValidateRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=100_000)
    answer: str = Field(max_length=100_000)
    sources: list[str] | None = Field(default=None, max_length=50)


def create_app(config_path: Path, token_env: str = TOKEN_ENV) -> FastAPI:
    """The API for the configuration at ``config_path`` (also /evaluate's default)."""
    config_path = config_path.resolve()
    app = FastAPI(title="audit-pipeline", version="1")
    service = LazyValidationService(config_path)
    evaluating = threading.Lock()

    def authorised(request: Request) -> None:
        token = os.environ.get(token_env)
        if not token:
            return
        given = request.headers.get("authorization", "")
        if not secrets.compare_digest(given.encode(), f"Bearer {token}".encode()):
            raise HTTPException(401, "missing or wrong bearer token")

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/evaluate", dependencies=[Depends(authorised)])
    def evaluate_endpoint(body: EvaluateRequest) -> Any:
        try:
            path = resolve_config(config_path.parent, config_path, body.config_path)
            with evaluating:  # one audit at a time: they share the warehouse and the index
                return evaluate(path, body.target, body.suite)
        except EvaluateError as error:
            return JSONResponse({"detail": str(error)}, status_code=error.status)

    @app.post("/validate", dependencies=[Depends(authorised)])
    def validate_endpoint(body: ValidateRequest) -> Any:
        from audit_pipeline.service.engine import ServiceInputError

        try:
            return service().validate(body.question, body.answer, body.sources)
        except ServiceInputError as error:
            field, _, message = str(error).partition(": ")
            return JSONResponse(
                {"detail": [{"loc": ["body", field], "msg": message, "type": "value_error"}]},
                status_code=422,
            )

    return app


def serve(config_path: Path, host: str, port: int) -> None:
    import uvicorn

    uvicorn.run(create_app(config_path), host=host, port=port, log_level="info")
