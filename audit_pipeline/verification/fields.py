"""Yes/no fields of structured context, and whether a claim states them the right way round.

Answers generated from records ("WiFi: no", "Ambience casual: no", "valet: no") most often go
wrong by flipping a flag: "offers free WiFi", "a casual atmosphere", "provides valet parking".
Word overlap calls such a claim well supported, since every word is in the evidence; only the
polarity is wrong. This finds ``key: yes|no`` lines in the evidence, works out which claim
words name a field (a key word shared by several fields, such as "restaurants" or "parking",
names none of them), and compares the field's value with whether the claim's clause is negated.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from audit_pipeline.text import wordlists
from audit_pipeline.text.tokens import STOPWORDS, stem
from audit_pipeline.verification.signals import NEGATION_WORDS

_FIELD = re.compile(
    r"^(?P<key>[^:\n]{2,80}):\s*(?P<value>yes|no|true|false|unknown)\s*\.?$", re.IGNORECASE
)
_VALUES = {"yes": True, "true": True, "no": False, "false": False, "unknown": None}
_WORDS = re.compile(r"[a-z0-9]+")
_TOKENS = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?|[,;:.!?()]")  # noqa: RUF001
# Negation reaches across a list ("no valet, garage, or lot") but not into the next statement
# (the words that start one: ``verification/words/break_words.txt``).
_BREAK_WORDS = wordlists.words("verification", "break_words")
_HARD_BREAKS = frozenset(";:.!?()")
# How many words before a field's mention, and after it in the same phrase, a negation may
# stand. Not stage parameters: they decide the field features (field_confirmed, field_flipped)
# the fitted model was trained on, so changing them needs a refit (``python -m
# benchmarks.train_verifier``), and the rewrite check reads the same analysis.
_BEFORE, _AFTER = 5, 3


@dataclass(frozen=True)
class BooleanField:
    """A ``key: yes|no|unknown`` line; ``words`` are the key's stems no other field shares.

    ``value`` is ``None`` for "unknown" (a null in the record): any claim about it is baseless.
    """

    words: frozenset[str]
    stopwords: frozenset[str]
    glued: frozenset[str]
    value: bool | None
    text: str


@dataclass(frozen=True)
class FieldCheck:
    confirmed: int
    false_asserted: tuple[str, ...]
    true_denied: tuple[str, ...]
    unknown_stated: tuple[str, ...] = ()


def is_field_line(text: str) -> bool:
    """A ``key: yes|no|unknown`` record line (its polarity is read here, not as prose)."""
    return bool(_FIELD.match(text.strip()))


def boolean_fields(sentences: Sequence[str]) -> list[BooleanField]:
    parsed: list[tuple[str, bool | None, list[str], str]] = []
    for sentence in sentences:
        match = _FIELD.match(sentence.strip())
        if match:
            words = _WORDS.findall(match.group("key").lower())
            value = _VALUES[match.group("value").lower()]
            parsed.append((match.group("key"), value, words, sentence.strip()))
    counts = Counter(stem(w) for _, _, words, _ in parsed for w in set(words) if w not in STOPWORDS)
    fields: list[BooleanField] = []
    for _, value, words, text in parsed:
        distinct = frozenset(stem(w) for w in words if w not in STOPWORDS and counts[stem(w)] == 1)
        if not distinct:
            continue
        glued = frozenset(
            a + b for a, b in pairwise(words) if stem(a) in distinct or stem(b) in distinct
        )
        # "Take Out": "take" alone is not the field; its stopword "out" must come with it.
        marked = [i for i, w in enumerate(words) if stem(w) in distinct]
        first, last = marked[0], marked[-1]
        while first > 0 and words[first - 1] in STOPWORDS:
            first -= 1
        while last + 1 < len(words) and words[last + 1] in STOPWORDS:
            last += 1
        stops = frozenset(w for w in words[first : last + 1] if w in STOPWORDS)
        fields.append(BooleanField(distinct, stops, glued, value, text))
    return fields


def _segments(claim: str) -> list[list[str]]:
    """Word runs between statement boundaries (sentence punctuation, "but", ", and")."""
    segments: list[list[str]] = [[]]
    previous = ""
    for token in _TOKENS.findall(claim.lower().replace("’", "'")):  # noqa: RUF001
        if token in _HARD_BREAKS or token in _BREAK_WORDS or (previous == "," and token == "and"):
            segments.append([])
        else:
            segments[-1].append(token)
        previous = token
    return [segment for segment in segments if any(t != "," for t in segment)]


def _is_negation(token: str) -> bool:
    return token in NEGATION_WORDS or token.endswith("n't")


def _negated_at(words: Sequence[str], first: int, last: int) -> bool:
    """A negation shortly before the mention ("no valet, garage or lot") or right after it in
    the same comma-delimited phrase ("valet parking is not offered")."""
    before = [w for w in words[:first] if w != ","][-_BEFORE:]
    after: list[str] = []
    for word in words[last + 1 :]:
        if word == "," or len(after) == _AFTER:
            break
        after.append(word)
    return any(_is_negation(word) for word in [*before, *after])


def _mentions(words: Sequence[str], field: BooleanField) -> tuple[int, int] | None:
    """First and last word positions naming ``field`` in ``words``, or ``None``."""
    stems = [stem(word) if word != "," else "," for word in words]
    glued = [("".join(ch for ch in words[i] if ch.isalnum()), i, i) for i in range(len(words))] + [
        (words[i] + words[i + 1], i, i + 1)
        for i in range(len(words) - 1)
        if "," not in words[i : i + 2]
    ]
    for text, first, last in glued:
        if text in field.glued:
            return first, last
    if not field.words <= set(stems) or not field.stopwords <= set(words):
        return None
    positions = [i for i, s in enumerate(stems) if s in field.words]
    return min(positions), max(positions)


def check_fields(claim: str, fields: Sequence[BooleanField]) -> FieldCheck:
    """Fields the claim mentions, split into stated correctly and flipped."""
    if not fields:
        return FieldCheck(0, (), ())
    confirmed = 0
    false_asserted: list[str] = []
    true_denied: list[str] = []
    unknown: list[str] = []
    for words in _segments(claim):
        for field in fields:
            span = _mentions(words, field)
            if span is None:
                continue
            negated = _negated_at(words, *span)
            if field.value is None:
                unknown.append(field.text)
            elif field.value and negated:
                true_denied.append(field.text)
            elif not field.value and not negated:
                false_asserted.append(field.text)
            else:
                confirmed += 1
    return FieldCheck(confirmed, tuple(false_asserted), tuple(true_denied), tuple(unknown))
