"""What a converter hands back, and the one error it may raise."""

from __future__ import annotations

import bisect
from dataclasses import dataclass


class ConversionError(ValueError):
    """The file cannot be turned into text; the message is the reason shown to the user
    (``damaged PDF: ...``, ``encrypted PDF: ...``). The scan skips the file and goes on."""


@dataclass(frozen=True)
class ConvertedText:
    """Markdown-like text of one document.

    ``page_starts[i]`` is the character offset in ``text`` where page ``i + 1`` begins (empty
    for formats without pages), so any span of the text maps back to the pages it came from.
    ``title`` is the document's own title (PDF metadata, HTML ``<title>``, DOCX core
    properties) for when the text has no ``#`` heading to take it from. ``dropped_share`` is
    the share of the file's text the converter left out as page furniture (PDF running
    headers and footers); None where nothing is counted.
    """

    text: str
    source_format: str
    page_starts: tuple[int, ...] = ()
    title: str | None = None
    dropped_share: float | None = None


def page_at(page_starts: tuple[int, ...], offset: int) -> int | None:
    """The 1-based page holding character ``offset``; None for a text without pages."""
    if not page_starts:
        return None
    return max(bisect.bisect_right(page_starts, offset), 1)


def page_span(page_starts: tuple[int, ...], start: int, end: int) -> tuple[int, int] | None:
    """First and last page of the span ``[start, end)``; None for a text without pages."""
    first = page_at(page_starts, start)
    last = page_at(page_starts, max(start, end - 1))
    return None if first is None or last is None else (first, last)


def page_label(first: int, last: int) -> str:
    """How a citation names pages: ``p.2`` or ``p.1-2``."""
    return f"p.{first}" if first == last else f"p.{first}-{last}"
