"""Small Markdown helpers shared by reports, asset metadata and the CLI."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _cell(value: Any, width: int | None, escaped: bool) -> str:
    text = "" if value is None else str(value)
    if not escaped:
        text = text.replace("\\", "\\\\").replace("|", "\\|")
    text = text.replace("\r", " ").replace("\n", " ")
    return text if width is None or len(text) <= width else text[: width - 1] + "…"


def markdown_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str],
    max_cell: int = 80,
    *,
    escaped: bool = False,
) -> str:
    """A GitHub-flavoured Markdown table; cells are single-line and pipe-escaped.

    ``escaped``: the caller escaped and shortened every cell already (``escape_markdown``),
    so they are used as they are: escaping again would double its backslashes, and cutting
    them could split an escape."""
    width = None if escaped else max_cell
    header = "| " + " | ".join(columns) + " |"
    rule = "| " + " | ".join("---" for _ in columns) + " |"
    body = [
        "| " + " | ".join(_cell(row.get(c), width, escaped) for c in columns) + " |" for row in rows
    ]
    return "\n".join([header, rule, *body])
