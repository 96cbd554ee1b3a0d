"""Sentence and clause boundaries with exact character offsets.

Regular-expression splitting rather than a tokenizer model: it has to run offline, be fast on
thousands of responses, and — most importantly — return spans of the original string, because
every claim, evidence sentence and highlighted report snippet points back into the text by
offset. The rules cover what chatbot answers actually contain: abbreviations ("e.g.", "Dr.",
"U.S."), decimals and versions ("2.5", "TLS 1.2"), list items and markdown.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

Span = tuple[int, int]

# Abbreviations after which a period never ends a sentence (they precede a name or a word).
_ALWAYS_ABBREVIATIONS = frozenset(
    [
        "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "gen", "sen", "rep", "gov", "lt", "col",
        "capt", "sgt", "mt", "ft", "vs", "e.g", "i.e", "cf", "approx", "jan", "feb", "mar",
        "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "dept", "univ", "ave",
        "blvd", "ste", "al",
    ]
)  # fmt: skip
# Abbreviations that only precede a number ("No. 5", "Fig. 3"); elsewhere "no." ends a sentence.
_NUMBER_ABBREVIATIONS = frozenset(["no", "nos", "fig", "figs", "vol", "pp", "op", "p", "st", "rd"])
# Sentence terminators: ., !, ?, an ellipsis, optionally followed by closing quotes/brackets,
# and then whitespace or the end of the text (so "2.5", "v1.2" and "file.md" never match).
_TERMINATOR = re.compile(r"(?:\.{3}|…|[.!?]+)[\"'”’)\]]*(?=\s|$)")  # noqa: RUF001
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_SPACE = re.compile(r"\s+")


def _is_abbreviation(text: str, dot: int, next_char: str) -> bool:
    """True when the period at ``dot`` closes an abbreviation or an initial, not a sentence."""
    match = _WORD_BEFORE.search(text, max(0, dot - 12), dot)
    if not match:
        return False
    word = match.group(1)
    lowered = word.lower().rstrip(".")
    if lowered in _ALWAYS_ABBREVIATIONS:
        return True
    if lowered in _NUMBER_ABBREVIATIONS and next_char.isdigit():
        return True
    # "J." (an initial) and dotted acronyms such as "U.S" / "e.g" keep the sentence going.
    if len(word) == 1 and word.isupper():
        return True
    return bool(re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", word))


def _next_visible(text: str, pos: int, end: int) -> str:
    while pos < end and text[pos].isspace():
        pos += 1
    return text[pos] if pos < end else ""


def _starts_sentence(char: str) -> bool:
    return char == "" or char.isupper() or char.isdigit() or char in "\"'“‘([*-•#$£€"  # noqa: RUF001


def trim(text: str, start: int, end: int) -> Span:
    """Shrink a span so it neither starts nor ends with whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def sentence_spans(
    text: str, start: int = 0, end: int | None = None, wrapped: bool = False
) -> list[Span]:
    """Spans of the sentences of ``text[start:end]``; a newline ends a sentence.

    With ``wrapped`` (text whose lines were broken for layout, as a PDF's are), a newline
    followed by a lowercase word continues the sentence, unless the line is a table row.
    """
    end = len(text) if end is None else end
    spans: list[Span] = []
    line_start = start
    while line_start < end:
        newline = text.find("\n", line_start, end)
        while wrapped and newline != -1 and _continues(text, line_start, newline, end):
            newline = text.find("\n", newline + 1, end)
        line_end = end if newline == -1 else newline
        spans.extend(_line_sentences(text, line_start, line_end))
        line_start = line_end + 1
    return spans


# A line broken for layout is long; short lines ("attributes WiFi: no") are records or items.
WRAPPED_LINE_CHARS = 50
# "review text: ...", "attributes WiFi: no": a record's "key: value" line, never wrapped prose.
_RECORD_LINE = re.compile(r"[^:.!?\n]{1,60}:\s")


def _continues(text: str, line_start: int, newline: int, end: int) -> bool:
    """The line ending at ``newline`` was wrapped: the next one goes on with a lowercase word
    and neither is a table row."""
    following = text[newline + 1 : end].lstrip(" \t")
    line = text[line_start:newline].strip()
    return (
        bool(following)
        and following[0].islower()
        and len(line) >= WRAPPED_LINE_CHARS
        and not _RECORD_LINE.match(line)
        and not line.startswith("|")
        and not line.endswith((".", "!", "?", ":", "|"))
    )


def _line_sentences(text: str, start: int, end: int) -> Iterator[Span]:
    current = start
    for match in _TERMINATOR.finditer(text, start, end):
        next_char = _next_visible(text, match.end(), end)
        token = match.group()
        if (
            token.startswith(".")
            and not token.startswith("...")
            and _is_abbreviation(text, match.start(), next_char)
        ):
            continue
        if not _starts_sentence(next_char):
            continue
        span = trim(text, current, match.end())
        if span[0] < span[1]:
            yield span
        current = match.end()
    span = trim(text, current, end)
    if span[0] < span[1]:
        yield span


# Clause boundaries inside a long sentence: a semicolon, or a comma before a conjunction that
# starts a new independent statement. The conjunction stays with the second clause.
_CLAUSE_BREAK = re.compile(
    r";\s+|,\s+(?=(?:and|but|while|whereas|although|though|yet|so|however|or)\s)", re.IGNORECASE
)


def word_count(text: str) -> int:
    return len(_SPACE.split(text.strip())) if text.strip() else 0


def clause_spans(text: str, start: int, end: int, min_words: int = 4) -> list[Span]:
    """Split one sentence span at clause boundaries; pieces shorter than ``min_words`` merge."""
    pieces: list[Span] = []
    current = start
    for match in _CLAUSE_BREAK.finditer(text, start, end):
        left = trim(text, current, match.start())
        right_words = word_count(text[match.end() : end])
        if word_count(text[left[0] : left[1]]) >= min_words and right_words >= min_words:
            pieces.append(left)
            current = match.end()
    pieces.append(trim(text, current, end))
    return [piece for piece in pieces if piece[0] < piece[1]]
