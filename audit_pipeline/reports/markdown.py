"""Small Markdown helpers shared by reports, asset metadata and the CLI."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _cell(value: Any, width: int) -> str:
    text = "" if value is None else str(value)
    text = text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def markdown_table(
    rows: Sequence[Mapping[str, Any]], columns: Sequence[str], max_cell: int = 80
) -> str:
    """A GitHub-flavoured Markdown table; cells are single-line and pipe-escaped."""
    header = "| " + " | ".join(columns) + " |"
    rule = "| " + " | ".join("---" for _ in columns) + " |"
    body = ["| " + " | ".join(_cell(row.get(c), max_cell) for c in columns) + " |" for row in rows]
    return "\n".join([header, rule, *body])
