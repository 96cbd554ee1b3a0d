"""Structured context (JSON records, API payloads) turned into sentences a verifier can read.

A chatbot that answers from a database row says "open until 5 pm" and "no reservations"; the
row says ``"hours": {"Monday": "11:0-17:0"}`` and ``"RestaurantsReservations": false``. Each
leaf becomes one ``"path: value"`` line with camel case split into words and booleans as
"yes"/"no", so word overlap and negation checks work on it. A null leaf becomes
"unknown": the record says the value is not known, so a claim either way about it is baseless.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

UNKNOWN = "unknown"
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_STRUCTURED_LITERAL = re.compile(r"^[\[{(].*[\]})]$", re.DOTALL)


def humanise_key(key: str) -> str:
    """``BusinessParking`` -> ``Business Parking``; short pieces (``WiFi``) stay joined."""
    pieces = _CAMEL.split(str(key).replace("_", " "))
    if any(len(piece.strip()) < 3 for piece in pieces):
        return str(key).replace("_", " ").strip()
    return " ".join(piece.strip() for piece in pieces)


def _value_text(value: Any) -> str:
    if value is None:
        return UNKNOWN
    if isinstance(value, bool):
        return "yes" if value else "no"
    text = str(value).strip()
    if text in ("True", "False", "None", "null"):
        return {"True": "yes", "False": "no", "None": UNKNOWN, "null": UNKNOWN}[text]
    return text


def _parse_literal(text: str) -> Any:
    """Values such as ``"{'garage': False}"`` are Python-literal dicts stored as strings."""
    if not _STRUCTURED_LITERAL.match(text.strip()):
        return text
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        import ast

        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def record_leaves(record: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    """(key path, value text) of every non-null leaf; list items are numbered ("review 2")."""
    if isinstance(record, str):
        record = _parse_literal(record)
    if isinstance(record, dict):
        for key, value in record.items():
            yield from record_leaves(value, (*path, humanise_key(key)))
        return
    if isinstance(record, list):
        if all(not isinstance(item, (dict, list)) for item in record):
            values = [
                _value_text(item) for item in record if item is not None and _value_text(item)
            ]
            if values:
                yield path, ", ".join(values)
            return
        for index, item in enumerate(record, start=1):
            label = path[-1] if path else "item"
            yield from record_leaves(item, (*path[:-1], f"{label} {index}"))
        return
    value = _value_text(record)
    if value:
        yield path, value


def leaf_line(path: tuple[str, ...], value: str) -> str:
    """``("attributes", "Ambience", "casual"), "no"`` -> ``"Ambience casual: no"``."""
    return f"{' '.join(path[-2:])}: {value}"


def record_lines(record: Any) -> list[str]:
    return [leaf_line(path, value) for path, value in record_leaves(record)]
