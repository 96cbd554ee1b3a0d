"""Structured JSON logs: one object per line, the same fields everywhere.

Every event names its ``component`` (runner, judge, retrieval, ...) and ``event``; calls carry a
``request_id`` (audit id + prompt id + turn) and ``latency_ms``, so one prompt can be followed
through target call, claims, evidence and verdicts with ``jq`` or a log store. Components log
to the standard ``audit_pipeline.*`` loggers; whoever runs the pipeline decides where lines go
(the CLI writes ``data/logs/audit.jsonl``; ``dagster.yaml`` shows them in the UI).
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, Any] = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname.lower(),
            "component": record.name.removeprefix("audit_pipeline."),
            "event": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                payload[key] = value
        if record.exc_info:
            payload["error"] = self.formatException(record.exc_info)
        return json.dumps(payload, default=str)


def request_id(audit_id: str, prompt_id: str, turn: int | None = None) -> str:
    return f"{audit_id}:{prompt_id}" + ("" if turn is None else f":{turn}")


def log_event(
    logger: logging.Logger,
    event: str,
    *,
    level: int = logging.INFO,
    request_id: str | None = None,
    latency_ms: float | None = None,
    **fields: Any,
) -> None:
    """Log ``event`` with structured fields (never pass secrets or model output here)."""
    extra: dict[str, Any] = dict(fields)
    if request_id is not None:
        extra["request_id"] = request_id
    if latency_ms is not None:
        extra["latency_ms"] = round(latency_ms, 1)
    logger.log(level, event, extra=extra)


def add_json_file_handler(path: Path, level: int = logging.INFO) -> logging.Handler:
    """Send every ``audit_pipeline`` log record to ``path`` as JSON lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(JsonFormatter())
    handler.setLevel(level)
    root = logging.getLogger("audit_pipeline")
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > level:
        root.setLevel(level)
    return handler
