"""Key facts of a vault section: the strings an answer about it must contain.

A generated question is only as good as its ``required_signals``: they must be facts the
section states and a faithful answer repeats, not words any answer would use. The facts that
carry a trust document are the checkable ones: durations ("4 hours", "every 12 months"),
quantities ("3072 bits", "99.9%"), dates ("11 March 2027"), control identifiers
("TH-AC-04") and organisation names ("Harrow & Vale LLP"). Facts the author put in **bold**
rank first: that is where a document says what matters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_UNITS = (
    r"(?:business\s+)?(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|bits?|bytes?|"
    r"[KMGT]i?B|iterations?|members?|controls?|exceptions?|people|characters?|percent)"
)
_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
)
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("date", re.compile(rf"\b\d{{1,2}}\s+{_MONTHS}\s+\d{{4}}\b|\b{_MONTHS}\s+\d{{4}}\b")),
    ("quantity", re.compile(rf"\b\d+(?:[.,]\d+)?(?:-|\s)?{_UNITS}\b", re.IGNORECASE)),
    ("percent", re.compile(r"\b\d+(?:\.\d+)?\s?%")),
    ("identifier", re.compile(r"\b[A-Z]{2,}(?:-[A-Z0-9]+)+\b|\b[A-Z]{2,}-\d+(?:\.\d+)*\b")),
    (
        "organisation",
        re.compile(
            r"\b[A-Z][\w]*[ \t]+(?:(?:[A-Z][\w]*|&)[ \t]+){0,3}"
            r"(?:LLP|Ltd|Inc|GmbH|B\.V|LLC|AG|plc)\b"
        ),
    ),
    ("standard", re.compile(r"\b(?:ISO/IEC\s+\d{4,5}(?::\d{4})?|TLS\s+1\.\d|AES-\d{3}(?:-GCM)?)")),
)
_BOLD = re.compile(r"\*\*(.+?)\*\*")
KIND_RANK = {
    "quantity": 0,
    "date": 1,
    "percent": 1,
    "organisation": 2,
    "identifier": 3,
    "standard": 4,
    "term": 5,
}
_DIGITS = re.compile(r"\d+(?:[.,]\d+)?")


def _same(a: Fact, b: Fact) -> bool:
    x, y = a.text.casefold(), b.text.casefold()
    numbers = _DIGITS.findall(x)
    return x in y or y in x or (bool(numbers) and numbers == _DIGITS.findall(y))


@dataclass(frozen=True)
class Fact:
    text: str
    kind: str
    bold: bool
    position: int


def key_facts(text: str, limit: int = 3) -> list[Fact]:
    """The section's most checkable facts, bold first, then by kind and position."""
    bold_spans = [(m.start(), m.end()) for m in _BOLD.finditer(text)]
    plain = text.replace("**", "  ")  # same length: positions stay valid
    found: dict[str, Fact] = {}
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(plain):
            value = " ".join(match.group(0).split()).strip(" .,;")
            if len(value) < 2 or "|" in value or value.casefold() in found:
                continue
            bold = any(a <= match.start() < b for a, b in bold_spans)
            found[value.casefold()] = Fact(value, kind, bold, match.start())
    for match in _BOLD.finditer(text):  # short bold terms: "Least privilege", "dual control"
        value = " ".join(match.group(1).split()).strip(" .,;:")
        if 1 <= len(value.split()) <= 4 and "|" not in value and value.casefold() not in found:
            found[value.casefold()] = Fact(value, "term", True, match.start())
    ranked = sorted(
        found.values(),
        key=lambda f: (f.kind == "term", not f.bold, KIND_RANK[f.kind], f.position),
    )
    chosen: list[Fact] = []
    for fact in ranked:
        # "12 months" inside "every 12 months", "35-day" beside "35 days": one signal each.
        if any(_same(fact, c) for c in chosen):
            continue
        chosen.append(fact)
        if len(chosen) == limit:
            break
    return chosen
