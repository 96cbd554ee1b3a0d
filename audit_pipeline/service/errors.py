"""The service's error vocabulary, one for the HTTP API and the MCP server.

A refused request says why in the same words on both surfaces: ``ServiceError.message`` is the
reason (``question: must not be empty``, ``busy: 4 validations running and 64 waiting``), the
HTTP API answers it with ``status`` and the MCP server raises it as the tool's error. Messages
never carry file content or the server's absolute paths (``public_message``), and a rejected
value is never echoed back: a 10 MB body must not come back as a 10 MB error.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ServiceConfigError(Exception):
    """The service cannot start as configured (an empty token); the message says what to do."""


@dataclass(frozen=True)
class FieldProblem:
    """One refused field of a request: where it is (``("sources", 3)``), what is wrong,
    pydantic's error type."""

    loc: tuple[str | int, ...]
    message: str
    kind: str = "value_error"

    def __str__(self) -> str:
        return f"{'.'.join(str(part) for part in self.loc) or 'request'}: {self.message}"


class ServiceError(Exception):
    """A request the service refuses or cannot finish; ``status`` is its HTTP status."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def headers(self) -> dict[str, str]:
        return {}


class InvalidFields(ServiceError):
    """Fields with wrong values (HTTP 422, the fields named as FastAPI names them)."""

    status = 422
    code = "invalid_fields"

    def __init__(self, problems: Sequence[FieldProblem]) -> None:
        super().__init__("; ".join(str(problem) for problem in problems))
        self.problems = tuple(problems)


class InvalidCharacters(ServiceError):
    """Text holding a NUL byte, another control character or an unpaired surrogate."""

    status = 400
    code = "invalid_characters"


class NotFound(ServiceError):
    status = 404
    code = "not_found"


class NotIndexed(ServiceError):
    """The vault has no index yet, and the request needs one."""

    status = 409
    code = "not_indexed"


class Busy(ServiceError):
    """Every worker is busy and the queue is full; try again after ``retry_after_s``."""

    status = 503
    code = "busy"

    def __init__(self, message: str, retry_after_s: float) -> None:
        self.retry_after_s = max(1, math.ceil(retry_after_s))
        super().__init__(f"{message}; retry after {self.retry_after_s} s")

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after_s)}


class TimedOut(ServiceError):
    """The request ran past ``service.time_budget_s``; nothing of it was recorded."""

    status = 504
    code = "timed_out"


class Failed(ServiceError):
    """The work itself failed (an audit that did not complete)."""

    status = 500
    code = "failed"


def refusal(items: Iterable[Mapping[str, Any]], skip: int = 0) -> ServiceError:
    """Validation errors (pydantic's or FastAPI's items, ``skip`` leading parts of each
    location left out) as the service's refusal, without the rejected input: 400 when a
    string held an unpaired surrogate (invalid characters), 422 naming the fields otherwise."""
    problems = [
        FieldProblem(tuple(item["loc"])[skip:], str(item["msg"]), str(item["type"]))
        for item in items
    ]
    for problem in problems:
        if problem.kind == "string_unicode":
            field = str(problem).partition(": ")[0]
            return InvalidCharacters(f"{field}: holds an invalid character (an unpaired surrogate)")
    return InvalidFields(problems)


_INVALID_IN_TEXT = re.compile(r"[\x00\ud800-\udfff]")
_INVALID_IN_NAME = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")


def _refuse(pattern: re.Pattern[str], field: str, text: str) -> None:
    found = pattern.search(text)
    if found is not None:
        raise InvalidCharacters(
            f"{field}: holds an invalid character (U+{ord(found.group()):04X} at position "
            f"{found.start()})"
        )


def check_text(field: str, text: str) -> None:
    """``InvalidCharacters`` for a NUL byte (no document or answer holds one) or an unpaired
    surrogate (JSON allows ``"\\ud800"``; UTF-8, and so the warehouse, cannot hold it)."""
    _refuse(_INVALID_IN_TEXT, field, text)


def check_name(field: str, value: str) -> None:
    """``InvalidCharacters`` for any control character in a path or a name: a NUL byte in a
    path is an error in every file call after it."""
    _refuse(_INVALID_IN_NAME, field, value)


_ABSOLUTE_PATH = re.compile(r"(?<![\w.~])/(?:[^\s/:'\"(),;]+/)*[^\s/:'\"(),;]*")


def public_message(message: str, base: Path) -> str:
    """``message`` with paths under ``base`` made relative to it and any other absolute path
    cut to its file name: a caller learns nothing of the server's file system."""
    root = str(base.resolve())

    def shorten(match: re.Match[str]) -> str:
        path = match.group()
        if path == root:
            return "."
        if path.startswith(root + os.sep):
            return path[len(root) + 1 :]
        return f".../{os.path.basename(path)}" if os.path.basename(path) else "..."

    return _ABSOLUTE_PATH.sub(shorten, message)
