"""Matching suite and config strings against model output.

Suite authors write plain strings ("AWS", "sk-", "system prompt:"), not regexes, so every one is
escaped before it becomes a pattern. Word boundaries are asserted only at an edge that is a word
character: "AWS" must not fire inside "laws", yet "sk-" must fire on "sk-abc" and
"system prompt:" must fire whatever follows the colon. Typographic quotes and hyphens are folded
to ASCII first (one code point for one, so positions still index the original text), because
models write curly apostrophes as often as straight ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u02bc": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u00a0": " ",
        "\u202f": " ",
    }
)
_WORD_CHAR = re.compile(r"\w")
_WORDS = re.compile(r"[^\W_]+")
MAX_QUOTED = 80


def fold(text: str) -> str:
    """``text`` with curly quotes, Unicode hyphens and no-break spaces made ASCII; same length."""
    return text.translate(_FOLD)


@lru_cache(maxsize=4096)
def phrase_pattern(phrase: str) -> re.Pattern[str] | None:
    """A case-insensitive pattern for a literal phrase; whitespace inside it matches any run of
    whitespace. None for a blank phrase (it would match everywhere)."""
    folded = fold(phrase).strip()
    if not folded:
        return None
    body = r"\s+".join(re.escape(word) for word in folded.split())
    lead = r"(?<!\w)" if _WORD_CHAR.match(folded[0]) else ""
    trail = r"(?!\w)" if _WORD_CHAR.match(folded[-1]) else ""
    return re.compile(lead + body + trail, re.IGNORECASE)


def find_phrase(text: str, phrase: str) -> list[re.Match[str]]:
    """Every occurrence of ``phrase`` in ``text`` (see the module docstring for the rules)."""
    pattern = phrase_pattern(phrase)
    return [] if pattern is None else list(pattern.finditer(fold(text)))


def significant_words(text: str, min_length: int = 4) -> list[str]:
    """Lowercased words of at least ``min_length`` characters, punctuation stripped, first
    occurrence order, no repeats."""
    return list(
        dict.fromkeys(word for word in _WORDS.findall(text.lower()) if len(word) >= min_length)
    )


def word_set(text: str) -> frozenset[str]:
    """All lowercased words of ``text``, split the same way as ``significant_words``."""
    return frozenset(_WORDS.findall(text.lower()))


def squash(text: str) -> str:
    """Case, spacing and punctuation removed: "SOC 2 Type-II" and "soc2_type_ii" compare equal."""
    return "".join(_WORDS.findall(fold(text).casefold()))


def blank_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with each span replaced by spaces, so positions are kept."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def quoted(text: str, limit: int = MAX_QUOTED) -> str:
    """A one-line, length-capped, double-quoted rendering for assertion details."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return f'"{flat}"'


def join_limited(items: list[str], limit: int = 10) -> str:
    """``a; b; c`` with at most ``limit`` items, then "and N more"."""
    shown = "; ".join(items[:limit])
    return shown + (f"; and {len(items) - limit} more" if len(items) > limit else "")
