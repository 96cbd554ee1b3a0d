"""Cut a response into plain and highlighted segments from claim character spans.

Spans come from a claim extractor (possibly an LLM) and are untrusted like everything else:
they may overlap, nest, run past the end of the text, be inverted, or not select the claim's
text. The renderers must never slice markup into the middle of a segment or drop text, so this
module turns spans into a flat, ordered list of non-overlapping segments that together are
exactly the response text; each renderer then escapes every segment on its own. A span that
does not select the claim falls back to the claim text's first occurrence; an unusable one is
left out (the claim is still listed with its verdict, just not highlighted).

Error spans (the words inside a flagged claim that the evidence does not back) count from the
claim's start and are just as untrusted: ``error_ranges`` moves them onto the response and
drops what does not fit, and ``segments`` clips them and flags the segments they cover.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

# Higher wins when spans overlap: the segment takes the class of its most severe claim.
SEVERITY: dict[str, int] = {"stale": 2, "contradicted": 2, "unsupported": 1}


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
    error: bool = False  # inside an error span: the part of a claim the evidence contradicts

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


def segments(
    text: str, marks: Iterable[Mark], errors: Iterable[tuple[int, int]] = ()
) -> list[Segment]:
    """Split ``text`` at every span boundary; joining the segments' text gives ``text`` back.

    ``errors`` (ranges of ``text``) are clipped to it and flag the segments they cover;
    neighbours left with the same claims and flag are joined again, so overlapping error
    spans come out as one piece and a renderer never shows a seam inside one.
    """
    usable = [m for m in marks if 0 <= m.start < m.end <= len(text)]
    wrong = [(max(0, lo), min(len(text), hi)) for lo, hi in errors]
    wrong = [(lo, hi) for lo, hi in wrong if lo < hi]
    bounds = [*(m.start for m in usable), *(m.end for m in usable), *(x for r in wrong for x in r)]
    result: list[Segment] = []
    for lo, hi in pairwise(sorted({0, len(text), *bounds})):
        covering = tuple(m for m in usable if m.start <= lo and hi <= m.end)
        closing = tuple(m for m in covering if m.end == hi)
        error = any(a <= lo and hi <= b for a, b in wrong)
        last = result[-1] if result else None
        if last and (last.marks, last.error) == (covering, error):
            result[-1] = Segment(last.text + text[lo:hi], covering, last.closing + closing, error)
        else:
            result.append(Segment(text[lo:hi], covering, closing, error))
    return result


def error_ranges(
    text: str, placed: tuple[int, int], claim_text: str, spans: Iterable[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Claim-relative ``spans`` as ranges of ``text``, inside the claim's ``placed`` highlight.

    The offsets are used where they select the same characters in the response as in the
    claim; where they do not (the claim was placed by its text, or paraphrased) the first
    occurrence of those characters inside the highlight is taken instead, and a span that
    matches nothing is dropped: marking the wrong words would mislead more than marking none.
    """
    lo, hi = placed
    found: list[tuple[int, int]] = []
    for start, end in spans:
        start, end = max(0, start), min(len(claim_text), end)
        if start >= end:
            continue
        wanted = claim_text[start:end]
        if lo + end <= hi and text[lo + start : lo + end] == wanted:
            found.append((lo + start, lo + end))
        elif (at := text.find(wanted, lo, hi)) >= 0:
            found.append((at, at + len(wanted)))
    return found


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
