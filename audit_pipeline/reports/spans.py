"""Cut a response into plain and highlighted segments from claim character spans.

Spans come from a claim extractor (possibly an LLM) and are untrusted like everything else:
they may overlap, nest, run past the end of the text, be inverted, or not select the claim's
text. The renderers must never slice markup into the middle of a segment or drop text, so this
module turns spans into a flat, ordered list of non-overlapping segments that together are
exactly the response text; each renderer then escapes every segment on its own. A span that
does not select the claim falls back to the claim text's first occurrence; an unusable one is
left out (the claim is still listed with its verdict, just not highlighted).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

# Higher wins when spans overlap: the segment takes the class of its most severe claim.
SEVERITY: dict[str, int] = {"contradicted": 2, "unsupported": 1}


@dataclass(frozen=True)
class Mark:
    """One claim to highlight: ``ref`` is the reader-facing tag (``C1``), ``key`` its anchor."""

    start: int
    end: int
    ref: str
    key: str
    label: str


@dataclass(frozen=True)
class Segment:
    text: str
    marks: tuple[Mark, ...]  # claims covering this segment (empty: plain text)
    closing: tuple[Mark, ...]  # claims whose span ends with this segment

    @property
    def label(self) -> str | None:
        """The most severe label among the covering claims."""
        if not self.marks:
            return None
        return max(self.marks, key=lambda m: SEVERITY.get(m.label, 0)).label


def place(
    text: str, start: int | None, end: int | None, claim_text: str | None
) -> tuple[int, int] | None:
    """A usable ``[start, end)`` inside ``text`` for a claim, or None.

    The offsets win when they select exactly the claim text. When they do not (an extractor
    counting bytes, or offsets from before a whitespace clean-up) but the claim text occurs
    verbatim, that occurrence is highlighted instead, so the reader sees the claim itself.
    Otherwise the offsets, clamped to the text, are used as given (an LLM extractor may
    normalise the claim's wording); an empty or inverted range is left out.
    """
    span: tuple[int, int] | None = None
    if start is not None and end is not None:
        lo, hi = max(0, start), min(len(text), end)
        if lo < hi:
            span = (lo, hi)
    if claim_text and (span is None or text[span[0] : span[1]] != claim_text):
        found = text.find(claim_text)
        if found >= 0:
            return found, found + len(claim_text)
    return span


def segments(text: str, marks: Iterable[Mark]) -> list[Segment]:
    """Split ``text`` at every span boundary; joining the segments' text gives ``text`` back."""
    usable = [m for m in marks if 0 <= m.start < m.end <= len(text)]
    cuts = sorted({0, len(text), *(m.start for m in usable), *(m.end for m in usable)})
    result: list[Segment] = []
    for lo, hi in pairwise(cuts):
        covering = tuple(m for m in usable if m.start <= lo and hi <= m.end)
        closing = tuple(m for m in covering if m.end == hi)
        result.append(Segment(text[lo:hi], covering, closing))
    return result


def runs(parts: Sequence[Segment]) -> list[tuple[bool, str, tuple[Mark, ...]]]:
    """Adjacent segments merged by highlighted-or-not: ``(highlighted, text, closing marks)``.

    For output formats (Markdown) where two highlights side by side would merge or break.
    """
    merged: list[tuple[bool, str, tuple[Mark, ...]]] = []
    for part in parts:
        lit = bool(part.marks)
        if merged and merged[-1][0] == lit:
            _, previous, closing = merged[-1]
            merged[-1] = (lit, previous + part.text, closing + part.closing)
        else:
            merged.append((lit, part.text, part.closing))
    return merged
