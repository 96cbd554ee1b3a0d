"""Text as a reader sees it: invisible characters dropped, compatibility forms folded.

A zero-width space inside a word ("quar\u200bterly"), a soft hyphen, a bidi control or a
full-width digit changes nothing a person reads, but every check that compares words or
values reads another word: a falsehood written with one passed where the clean sentence was
contradicted. So every check reads text in this form. Unicode format characters (category Cf:
zero-width spaces and joiners, soft hyphens, bidi embeddings, overrides and isolates, the
byte-order mark) are dropped, and each remaining character is put into NFKC form (full-width
and ligature forms, non-breaking and other spaces, superscript digits). ``to_original`` maps a
span of the normalised text back to the original, so a highlighted error span still points
into what the bot wrote.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Normalized:
    """``text`` in reading form; ``origins[i]`` is the original index of its character ``i``
    (one more entry, the original length, closes the last span)."""

    original: str
    text: str
    origins: tuple[int, ...]

    @property
    def changed(self) -> bool:
        return self.text != self.original

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """A span of ``text`` as the span of the original text that produced it."""
        if not self.changed:
            return start, end
        start = min(max(start, 0), len(self.text))
        end = min(max(end, start), len(self.text))
        first = self.origins[start]
        if end == start:
            return first, first
        return first, self.origins[end - 1] + _width(self.original, self.origins[end - 1])


def _width(text: str, index: int) -> int:
    """1: one original character produces each run of normalised characters."""
    return 1 if index < len(text) else 0


@lru_cache(maxsize=50_000)
def normalize(text: str) -> Normalized:
    """``text`` with format characters dropped and every character in NFKC form."""
    if text.isascii():
        return Normalized(text, text, ())
    pieces: list[str] = []
    origins: list[int] = []
    for index, char in enumerate(text):
        if unicodedata.category(char) == "Cf":
            continue
        folded = unicodedata.normalize("NFKC", char) if not char.isascii() else char
        pieces.append(folded)
        origins.extend([index] * len(folded))
    origins.append(len(text))
    normalized = "".join(pieces)
    if normalized == text:
        return Normalized(text, text, ())
    return Normalized(text, normalized, tuple(origins))


def reading_form(text: str) -> str:
    """The text every check reads (``normalize(text).text``)."""
    return normalize(text).text
