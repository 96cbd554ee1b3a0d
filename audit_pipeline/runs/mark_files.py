"""Marks in bulk: a CSV file with a header row, or JSON lines, one mark each.

Columns (CSV) or keys (JSONL): ``audit_id``, ``claim_id``, ``label`` (supported, unsupported
or contradicted), and optionally ``note`` and ``by``. Anything else is an error, as is a row
without a required field; errors name the file, the row (the line for JSONL; the header is
row 1 of a CSV) and the field.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from audit_pipeline.runs.marking import MarkError, MarkRequest

REQUIRED = ("audit_id", "claim_id", "label")
OPTIONAL = ("note", "by")


def _request(values: dict[str, Any], where: str) -> MarkRequest:
    unknown = sorted(set(values) - {*REQUIRED, *OPTIONAL})
    if unknown:
        raise MarkError(
            f"{where}: {unknown[0]}: unknown field (fields: {', '.join((*REQUIRED, *OPTIONAL))})"
        )
    for field in (*REQUIRED, *OPTIONAL):
        value = values.get(field)
        if value is not None and not isinstance(value, str):
            raise MarkError(f"{where}: {field}: must be text, not {type(value).__name__}")
    for field in REQUIRED:
        if not (values.get(field) or "").strip():
            raise MarkError(f"{where}: {field}: missing")
    return MarkRequest(
        audit_id=values["audit_id"],
        claim_id=values["claim_id"],
        label=values["label"],
        note=values.get("note"),
        by=values.get("by"),
        where=where,
    )


def read_mark_file(path: Path) -> list[MarkRequest]:
    """The requests of a ``.csv`` or ``.jsonl`` (``.json``, ``.ndjson``) marks file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise MarkError(f"{path}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise MarkError(f"{path}: not valid UTF-8 ({error.reason})") from None
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _csv(path, text)
    if suffix in (".jsonl", ".ndjson", ".json"):
        return _jsonl(path, text)
    raise MarkError(f"{path}: a marks file is .csv or .jsonl, not {suffix or 'without suffix'}")


def _csv(path: Path, text: str) -> list[MarkRequest]:
    reader = csv.DictReader(text.splitlines())
    header = reader.fieldnames or []
    missing = [f for f in REQUIRED if f not in header]
    if missing:
        raise MarkError(f"{path} row 1: {missing[0]}: missing column (header: {', '.join(header)})")
    requests = []
    for number, row in enumerate(reader, start=2):
        if None in row:
            raise MarkError(f"{path} row {number}: more values than the header has columns")
        values = {k: v for k, v in row.items() if v not in (None, "") or k in REQUIRED}
        requests.append(_request(values, f"{path} row {number}"))
    return requests


def _jsonl(path: Path, text: str) -> list[MarkRequest]:
    requests = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        try:
            values = json.loads(line)
        except json.JSONDecodeError as error:
            raise MarkError(f"{where}: not JSON ({error.msg})") from None
        if not isinstance(values, dict):
            raise MarkError(f"{where}: a mark is a JSON object")
        requests.append(_request({k: v for k, v in values.items() if v is not None}, where))
    return requests
