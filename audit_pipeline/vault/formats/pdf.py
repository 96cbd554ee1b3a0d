"""PDF text layer to Markdown-like text with a page map (pypdf).

A PDF has no headings, only text drawn in larger fonts, so a line set in a font clearly larger
than the body text (the size that carries most characters) becomes a ``#`` heading, the largest
size ``#``, the next ``##`` and so on: the heading-aware chunker then cuts the document into
sections as it does Markdown. A line that repeats at the same place (first, second, last or
last-but-one line) on most pages, once its page number alone is masked, is a running header or
footer ("Example Corp - Internal", "Page 3 of 12") and is dropped, as it would otherwise end up
in every chunk and every keyword search. Only a number that follows the page (the page plus a
constant) counts as a page number: headings such as "Section 7: Control TH-P-007" differ in
more than that and stay. How much of the text was dropped is kept (``dropped_share``), and
the scan warns when it is more than a small share. Pages are joined by a blank line and their
start offsets are kept, so a chunk or a citation can name its page. No OCR: a PDF without a
text layer is refused, not indexed empty.
"""

from __future__ import annotations

import io
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from audit_pipeline.vault.formats.converted import ConversionError, ConvertedText

_HEADING_RATIO = 1.15  # a font this much larger than the body text sets a heading
_MAX_HEADING_CHARS = 150
_HEADING_LEVELS = 4
_EDGE_LINES = 2  # lines at the top and at the bottom of a page checked for running text
_NUMBER = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
# Typographic ligatures some PDF producers leave in the text layer; searches need the letters.
_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬆ": "st"})


@dataclass
class _Page:
    """One page's extracted text and the runs of text drawn on it with their font size."""

    text: str
    runs: list[tuple[float, str]] = field(default_factory=list)


def _squeeze(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def _read_page(page: Any) -> _Page:
    runs: list[tuple[float, str]] = []

    def visit(
        text: str, cm: Sequence[float], tm: Sequence[float], font: Any, font_size: float
    ) -> None:
        if text.strip():
            # The size on the page is the font size scaled by the text and the user matrix.
            scale = math.hypot(tm[2], tm[3]) * math.hypot(cm[2], cm[3])
            runs.append((round(abs(font_size * scale), 1), text))

    text = page.extract_text(visitor_text=visit)
    return _Page(text or "", runs)


def _read_pages(raw: bytes) -> tuple[list[_Page], str | None]:
    """The text and sized runs of every page, and the metadata title.

    pypdf raises many exception types on damaged files (``PdfReadError``, ``KeyError``,
    ``ValueError``, ``TypeError`` from a broken object...), and a damaged file must never stop
    the scan, so every one of them becomes a ``ConversionError`` naming what went wrong.
    """
    from pypdf import PasswordType, PdfReader

    try:
        reader = PdfReader(io.BytesIO(raw))
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")  # owner-password-only PDFs open without one
            except Exception as error:  # DependencyError, NotImplementedError (algorithm)
                raise ConversionError(f"encrypted PDF that cannot be opened: {error}") from error
            if opened == PasswordType.NOT_DECRYPTED:
                raise ConversionError("encrypted PDF: a password is required to open it")
        pages = [_read_page(page) for page in reader.pages]
        metadata = reader.metadata
        title = str(metadata.title).strip() if metadata and metadata.title else None
    except ConversionError:
        raise
    except Exception as error:
        raise ConversionError(f"damaged PDF ({type(error).__name__}: {error})") from error
    return pages, title or None


def _heading_sizes(pages: Sequence[_Page]) -> dict[float, int]:
    """Font size -> heading level, for the sizes clearly larger than the body text's."""
    weight: Counter[float] = Counter()
    for page in pages:
        for size, text in page.runs:
            weight[size] += len(text.strip())
    if not weight:
        return {}
    body = weight.most_common(1)[0][0]
    sizes = sorted((s for s in weight if s >= body * _HEADING_RATIO), reverse=True)
    return {size: min(rank + 1, _HEADING_LEVELS) for rank, size in enumerate(sizes)}


def _page_headings(page: _Page, level_of: dict[float, int]) -> dict[str, int]:
    """Squeezed heading text -> level for the headings drawn on one page.

    Per page, so a table of contents in body text does not turn into headings; a heading drawn
    in several runs (word by word, or wrapped) is joined as well as taken run by run.
    """
    headings: dict[str, int] = {}
    group: list[str] = []
    group_size = 0.0
    for size, text in [*page.runs, (0.0, "")]:
        if size in level_of and size == group_size:
            group.append(text)
            continue
        if group:
            for candidate in (_squeeze(" ".join(group)), *(_squeeze(part) for part in group)):
                if 0 < len(candidate) <= _MAX_HEADING_CHARS:
                    headings.setdefault(candidate, level_of[group_size])
        group, group_size = ([text], size) if size in level_of else ([], 0.0)
    return headings


def _edge_slots(kept: Sequence[str]) -> dict[tuple[str, int], int]:
    """Place on the page -> index in ``kept`` of the first two and the last two lines."""
    slots: dict[tuple[str, int], int] = {}
    for rank in range(min(_EDGE_LINES, len(kept))):
        slots[("top", rank)] = rank
        slots[("bottom", rank)] = len(kept) - 1 - rank
    return slots


def _only_page_numbers_vary(members: Sequence[tuple[int, tuple[int, ...], int]]) -> bool:
    """Whether lines of one template, as (page, their numbers, line), differ in one number
    at most, and that one follows the page (the page plus a constant: a cover page may go
    unnumbered)."""
    varying = 0
    for position in range(len(members[0][1])):
        if len({numbers[position] for _, numbers, _ in members}) == 1:
            continue
        varying += 1
        if varying > 1 or len({numbers[position] - page for page, numbers, _ in members}) > 1:
            return False
    return True


def _running_lines(pages: Sequence[Sequence[str]]) -> list[set[int]]:
    """Per page, the indexes (among its non-blank lines) of its running headers and footers:
    lines at the same place on most pages, equal once their page number is masked."""
    found: list[set[int]] = [set() for _ in pages]
    if len(pages) < 2:
        return found
    groups: dict[tuple[tuple[str, int], str], list[tuple[int, tuple[int, ...], int]]] = {}
    for page, lines in enumerate(pages, start=1):
        kept = [line for line in lines if line.strip()]
        for slot, index in _edge_slots(kept).items():
            line = _squeeze(kept[index])
            numbers = tuple(int(n) for n in _NUMBER.findall(line))
            groups.setdefault((slot, _NUMBER.sub("#", line)), []).append((page, numbers, index))
    for members in groups.values():
        if len(members) >= 2 and 2 * len(members) > len(pages) and _only_page_numbers_vary(members):
            for page, _, index in members:
                found[page - 1].add(index)
    return found


def _page_markdown(lines: Sequence[str], headings: dict[str, int], running: set[int]) -> str:
    """One page's lines with headings marked and its running lines (indexes among the
    non-blank lines) left out."""
    kept = [line for line in lines if line.strip()]
    out: list[str] = []
    last_heading: tuple[int, int] | None = None  # (index in out, level) of the line before
    for number, line in enumerate(kept):
        if number in running:
            continue
        squeezed = _squeeze(line)
        level = headings.get(squeezed, 0)
        if level and last_heading and last_heading[1] == level:  # a heading wrapped in two
            out[last_heading[0]] += f" {squeezed}"
            continue
        if level:
            out.extend([*([""] if out and out[-1] else []), f"{'#' * level} {squeezed}", ""])
            last_heading = (len(out) - 2, level)
        else:
            out.append(line.rstrip())
            last_heading = None
    return "\n".join(out).strip("\n")


def convert_pdf(raw: bytes) -> ConvertedText:
    """The text layer of a PDF as Markdown-like text, one page after the other."""
    pages, title = _read_pages(raw)
    if not any(page.text.strip() for page in pages):
        count = len(pages)
        raise ConversionError(
            f"PDF without a text layer ({count} page{'s' if count != 1 else ''}, image-only "
            "or scanned; OCR is not done)"
        )
    level_of = _heading_sizes(pages)
    page_lines = [
        page.text.translate(_LIGATURES).replace("\r\n", "\n").split("\n") for page in pages
    ]
    running = _running_lines(page_lines)
    parts: list[str] = []
    starts: list[int] = []
    offset = total = dropped_chars = 0
    for page, lines, dropped in zip(pages, page_lines, running, strict=True):
        starts.append(offset)
        text = _page_markdown(lines, _page_headings(page, level_of), dropped)
        parts.append(text)
        offset += len(text) + 2  # the blank line that joins pages
        kept = [_squeeze(line) for line in lines if line.strip()]
        total += sum(len(line) for line in kept)
        dropped_chars += sum(len(kept[index]) for index in dropped)
    text = "\n\n".join(parts)
    if not text.strip():
        raise ConversionError("PDF whose only text is running headers and footers")
    return ConvertedText(
        text=text,
        source_format="pdf",
        page_starts=tuple(starts),
        title=title,
        dropped_share=round(dropped_chars / total, 4) if total else 0.0,
    )
