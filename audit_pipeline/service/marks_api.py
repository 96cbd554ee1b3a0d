"""Marks over HTTP: ``POST /marks`` for any client, and the served report with its own
``POST /reports/<audit>/marks`` for the report's mark control.

A mark changes what the gates count (a suppressed false alarm unblocks a release), so
recording one always needs the API token: without ``$AUDIT_API_TOKEN`` set the routes answer
403, even where the server otherwise runs without authentication.

Browsers cannot send a bearer header when they open a page, so the report pages and their
mark route (everything under ``/reports/``) also take HTTP Basic credentials whose password is
the token (any user name; it becomes the mark's author when the request names none): the
browser asks once, and sends them again with the page's requests under ``/reports/``.
``ReportBasicAuth`` turns them into the bearer header the API's own check reads, and adds the
Basic challenge to a 401 there. The report's route also refuses a request from another origin
and any body that is not JSON, so a page elsewhere cannot make a signed-in browser mark.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from audit_pipeline.config import AuditConfig
from audit_pipeline.records.marks import Mark
from audit_pipeline.reports.mark_control import content_security_policy
from audit_pipeline.reports.write import report_dir_name
from audit_pipeline.runs.marking import MarkError, MarkRequest, record_marks
from audit_pipeline.service.errors import NotFound, ServiceError
from audit_pipeline.warehouse.mark_tables import audit_exists
from audit_pipeline.warehouse.store import Warehouse

REPORTS = "/reports/"
BASIC_USER = "audit_pipeline_basic_user"  # scope["state"] key: the Basic user name


class Forbidden(ServiceError):
    status = 403
    code = "forbidden"


class InvalidMark(ServiceError):
    status = 422
    code = "invalid_mark"


class MarkBody(BaseModel):
    """One analyst's mark on one claim of one audit."""

    model_config = ConfigDict(extra="forbid", strict=True)

    audit_id: Annotated[str, Field(min_length=1, max_length=200)]
    claim_id: Annotated[str, Field(min_length=1, max_length=200)]
    label: Literal["supported", "unsupported", "contradicted"]
    note: Annotated[str, Field(max_length=2000)] | None = None
    by: Annotated[str, Field(min_length=1, max_length=100)] | None = None


def _basic(header: str) -> tuple[str, str] | None:
    scheme, _, credentials = header.strip().partition(" ")
    if scheme.casefold() != "basic":
        return None
    try:
        decoded = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    user, colon, password = decoded.partition(":")
    return (user, password) if colon else None


class ReportBasicAuth:
    """Under ``/reports/``: Basic credentials carrying the token count as the bearer token,
    and a 401 carries the Basic challenge (so a browser asks for them)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(REPORTS):
            await self.app(scope, receive, send)
            return
        headers = []
        for name, value in scope["headers"]:
            if name == b"authorization":
                basic = _basic(value.decode("latin-1"))
                if basic is not None:
                    scope.setdefault("state", {})[BASIC_USER] = basic[0]
                    value = f"Bearer {basic[1]}".encode("latin-1", "replace")
            headers.append((name, value))
        scope = {**scope, "headers": headers}

        async def challenge(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                message = {
                    **message,
                    "headers": [
                        *message.get("headers", []),
                        (b"www-authenticate", b'Basic realm="audit-pipeline reports"'),
                    ],
                }
            await send(message)

        await self.app(scope, receive, challenge)


def _public(mark: Mark) -> dict[str, Any]:
    return {
        "mark_id": mark.mark_id,
        "marked_at": mark.marked_at.isoformat(),
        "marked_by": mark.marked_by,
        "audit_id": mark.audit_id,
        "claim_id": mark.claim_id,
        "target": mark.target,
        "claim": mark.claim_text,
        "label_given": mark.label_given,
        "decided_by_given": mark.decided_by_given,
        "label_marked": str(mark.label_marked),
        "note": mark.note,
        "evidence_state": mark.evidence_state,
    }


def add_mark_routes(app: FastAPI, config: AuditConfig, token: str | None) -> None:
    """``POST /marks``, ``GET /reports/{audit_id}/`` and ``POST /reports/{audit_id}/marks``
    on ``app``; call it after the app's own authentication middleware is added."""
    app.add_middleware(ReportBasicAuth)
    store = Warehouse(config.duckdb_path, config.storage.lock_timeout_s)

    async def record(body: MarkBody, request: Request, source: str) -> JSONResponse:
        if token is None:
            raise Forbidden(
                "recording marks needs the API token: start `audit-pipeline serve` with "
                "$AUDIT_API_TOKEN set"
            )
        author = request.scope.get("state", {}).get(BASIC_USER) or "api"
        mark = MarkRequest(body.audit_id, body.claim_id, body.label, body.note, body.by)

        def write() -> list[Mark]:
            if not store.path.exists():
                raise NotFound("no warehouse yet: run an audit first")
            store.migrate()
            return record_marks(store, [mark], source, default_by=author)

        try:
            marks = await asyncio.to_thread(write)
        except MarkError as error:
            message = str(error).removeprefix("mark: ")
            if message.startswith("claim_id: no claim"):
                raise NotFound(message) from None
            raise InvalidMark(message) from None
        return JSONResponse(_public(marks[0]), 201)

    @app.post("/marks", status_code=201)
    async def marks_endpoint(body: MarkBody, request: Request) -> Any:
        """Record an analyst's mark on a claim's verdict (the token is required): later
        audits of the claim take the marked label while its evidence is unchanged."""
        return await record(body, request, "api")

    @app.get("/reports/{audit_id}", include_in_schema=False)
    def report_redirect(audit_id: str) -> RedirectResponse:
        return RedirectResponse(f"{REPORTS}{audit_id}/", status_code=307)

    @app.get("/reports/{audit_id}/", response_class=HTMLResponse)
    def report_page(audit_id: str) -> HTMLResponse:
        """An audit's HTML report, served so its mark controls record through this API."""
        try:
            path = config.reports_dir / report_dir_name(audit_id) / "report.html"
        except ValueError:
            raise NotFound(f"no report for audit {audit_id!r}") from None
        if not _inside(path, config.reports_dir) or not path.is_file():
            raise NotFound(f"no report for audit {audit_id!r} (audit-pipeline report AUDIT_ID)")
        return HTMLResponse(
            path.read_text(encoding="utf-8"),
            headers={
                "Content-Security-Policy": content_security_policy(),
                "X-Content-Type-Options": "nosniff",
                "Cache-Control": "no-store",
                "Referrer-Policy": "no-referrer",
            },
        )

    @app.post("/reports/{audit_id}/marks", status_code=201)
    async def report_marks(audit_id: str, body: MarkBody, request: Request) -> Any:
        """The served report's mark control: as ``POST /marks`` for the report's audit, from
        the report's own origin only."""
        origin = request.headers.get("origin")
        own = f"{request.url.scheme}://{request.headers.get('host', '')}"
        if origin is not None and origin != own:
            raise Forbidden("marks from the report are accepted from its own origin only")
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise Forbidden("a mark is sent as application/json")
        if body.audit_id != audit_id:
            raise Forbidden("the mark names another audit than the report")
        if not await asyncio.to_thread(
            lambda: store.path.exists() and audit_exists(store, audit_id)
        ):
            raise NotFound(f"audit {audit_id!r} is not in the warehouse")
        return await record(body, request, "report")


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())
