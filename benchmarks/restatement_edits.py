"""Edits that teach the cross-encoder meaning rather than word overlap (issue 31, item 2).

Beside ``minimal_edits`` (one changed word flips a fact), these are the edits a vault answer
makes in practice:

- faithful restatements: a quantity in an equivalent unit ("2 hours" -> "120 minutes",
  "3,000 kg" -> "3 tonnes", converted with pint, never by a table of our own), a small number
  as a word ("14" -> "fourteen"), a policy phrase in other words ("at least" -> "no fewer
  than", "must" -> "is required to", "no one" -> "nobody");
- structure edits that change the meaning with the words kept: an obligation stated as a
  permission or the reverse (``modality``), two parties of one sentence swapped (``agent``),
  and a condition dropped ("... if the manager approves" -> the rule alone; not entailed, and
  not contradicted either: the evidence says nothing about the unconditional case).

Every edit returns ``None`` when the sentence offers nothing to edit.
"""

from __future__ import annotations

import random
import re
from functools import cache
from typing import Any

from audit_pipeline.text import wordlists
from benchmarks.minimal_edits import splice_one

# (word as written after a number, pint unit, units it may be restated in)
_CONVERTIBLE = (
    (r"(?:seconds?|secs?)", "second", ("minute",)),
    (r"(?:minutes?|mins?)", "minute", ("second", "hour")),
    (r"hours?", "hour", ("minute", "day")),
    (r"days?", "day", ("hour", "week")),
    (r"weeks?", "week", ("day",)),
    (r"(?:kilograms?|kg)", "kilogram", ("gram", "tonne")),
    (r"(?:grams?|g)", "gram", ("kilogram", "milligram")),
    (r"(?:tonnes?|tons?)", "tonne", ("kilogram",)),
    (r"(?:kilometres?|kilometers?|km)", "kilometer", ("meter",)),
    (r"(?:metres?|meters?|m)", "meter", ("centimeter", "kilometer")),
    (r"(?:centimetres?|centimeters?|cm)", "centimeter", ("millimeter", "meter")),
    (r"(?:millimetres?|millimeters?|mm)", "millimeter", ("centimeter",)),
    (r"(?:litres?|liters?|l)", "liter", ("milliliter",)),
    (r"(?:millilitres?|milliliters?|ml)", "milliliter", ("liter",)),
)
_WRITTEN = {
    "second": "seconds",
    "minute": "minutes",
    "hour": "hours",
    "day": "days",
    "week": "weeks",
    "kilogram": "kg",
    "gram": "grams",
    "milligram": "mg",
    "tonne": "tonnes",
    "kilometer": "km",
    "meter": "metres",
    "centimeter": "cm",
    "millimeter": "mm",
    "liter": "litres",
    "milliliter": "ml",
}
_QUANTITY = re.compile(
    r"(?<![\w.,$£€-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(\s?)("
    + "|".join(f"(?:{pattern})" for pattern, _, _ in _CONVERTIBLE)
    + r")\b",
    re.IGNORECASE,
)
# A count as the word the specifics reader takes for it (its number-word list), with "zero"
# and "one"; "hundred" and "dozen" are left out: "a hundred", not a bare word, restates 100.
_WORD_FOR = {0: "zero", 1: "one"} | {
    value: word
    for word, value in wordlists.pairs("specifics", "number_words", int).items()
    if word not in ("hundred", "dozen")
}
# Phrases a policy answer restates in other words (each way only where both read the same).
_PHRASES = (
    ("at least", "no fewer than"),
    ("at least", "a minimum of"),
    ("at most", "no more than"),
    ("before", "prior to"),
    ("after", "following"),
    ("must", "is required to"),
    ("must not", "is not allowed to"),
    ("cannot", "is not able to"),
    ("may", "is allowed to"),
    ("no one", "nobody"),
    ("nobody", "no one"),
    ("within", "in no more than"),
    ("each", "every"),
    ("every", "each"),
    ("buy", "purchase"),
    ("pay", "cover the cost of"),
    ("about", "approximately"),
    ("more than", "over"),
    ("less than", "under"),
)
_MODALITY = (
    ("must not", "may"),
    ("must", "may"),
    ("may", "must"),
    ("can", "must"),
    ("is required to", "may"),
    ("are required to", "may"),
    ("need not", "must"),
    ("does not have to", "must"),
    ("should", "need not"),
    ("is allowed to", "is required to"),
    ("are allowed to", "are required to"),
    ("cannot", "must"),
)
_CONDITION = re.compile(
    r"(?:,\s*|\s+)(?:only\s+)?(?:(?<!as )if|unless|provided that|as long as|"
    r"except(?: when| where)?|subject to|on condition that)\s+[^,.;]{3,}",
    re.IGNORECASE,
)
_LEADING_CONDITION = re.compile(
    r"^(?:only\s+)?(?:if|unless|provided that|as long as)\s+[^,]{3,},\s*",
    re.IGNORECASE,
)
_PARTY = re.compile(
    r"\b(?:[Tt]he )?(?:tenant|landlord|employer|employee|buyer|seller|customer|bank|patient|"
    r"pharmacist|insurer|policyholder|student|school|parent|licensee|licensor|supplier|"
    r"contractor|client|company|member|manager|user|provider)s?\b"
)


@cache
def _registry() -> Any:
    import pint

    return pint.UnitRegistry()


def _plain(value: float) -> str | None:
    """A converted value a person would write: whole, or with at most one decimal."""
    if value <= 0 or value > 10_000:
        return None
    if abs(value - round(value)) < 1e-9:
        return f"{round(value):,}"
    if abs(value * 10 - round(value * 10)) < 1e-9:
        return f"{value:.1f}"
    return None


def restate_unit(sentence: str, rng: random.Random) -> str | None:
    """One quantity in an equivalent unit (pint converts); None where no value is plain."""
    options = []
    for match in _QUANTITY.finditer(sentence):
        word = match.group(3)
        found = [(u, t) for p, u, t in _CONVERTIBLE if re.fullmatch(p, word, re.IGNORECASE)]
        if not found:
            continue
        unit, targets = found[0]
        if len(word) <= 2 and word.lower() != word and unit not in ("kilogram",):
            continue  # "5 M", "3 G": not units
        value = float(match.group(1).replace(",", ""))
        for target in targets:
            converted = (value * _registry()(unit)).to(target).magnitude
            written = _plain(float(converted))
            if written is not None:
                options.append((match, f"{written} {_WRITTEN[target]}"))
    if not options:
        return None
    match, new = rng.choice(options)
    return sentence[: match.start()] + new + sentence[match.end() :]


def number_word(value: int) -> str | None:
    return _WORD_FOR.get(value)


def restate_number(sentence: str, rng: random.Random) -> str | None:
    """A small count written as a word ("14 days" -> "fourteen days")."""
    options = [
        m
        for m in re.finditer(r"(?<![\w.,$£€-])(\d{1,2})(?![\w.,%-])(?=\s+[a-z])", sentence)
        if number_word(int(m.group(1)))
    ]
    if not options:
        return None
    match = rng.choice(options)
    word = number_word(int(match.group(1)))
    return sentence[: match.start()] + str(word) + sentence[match.end() :]


def _swap_phrase(
    sentence: str, pairs: tuple[tuple[str, str], ...], rng: random.Random
) -> str | None:
    options = []
    for old, new in pairs:
        for match in re.finditer(rf"\b{re.escape(old)}\b", sentence, re.IGNORECASE):
            if old == "must" and re.match(r"\s+(?:not|have|well)\b", sentence[match.end() :]):
                continue  # "must not" is its own entry; "must have" is a guess, not a duty
            after = sentence[match.end() :]
            if old in ("may", "can") and re.match(r"\s+(?:not|be|have)\b", after):
                continue  # "may not", "may be" (a possibility, not a permission)
            options.append((match, new))
    return splice_one(sentence, options, rng)


def restate(sentence: str, rng: random.Random) -> str | None:
    """A faithful restatement: other unit, a number word, or a phrase in other words."""
    ways = [restate_unit, restate_number, lambda s, r: _swap_phrase(s, _PHRASES, r)]
    rng.shuffle(ways)
    for way in ways:
        out = way(sentence, rng)
        if out is not None and out != sentence:
            return out
    return None


def edit_modality(sentence: str, rng: random.Random) -> str | None:
    """An obligation stated as a permission, or the reverse."""
    return _swap_phrase(sentence, _MODALITY, rng)


def edit_agent(sentence: str, rng: random.Random) -> str | None:
    """Two different parties of one sentence change places ("A pays B" -> "B pays A")."""
    # Parties by their role ("the tenant", "the bank"): a swap of names is the entity edit.
    parties = list(dict.fromkeys(m.group() for m in _PARTY.finditer(sentence)))
    distinct = [
        p for p in parties if sentence.count(p) == 1 and not any(p != q and p in q for q in parties)
    ]
    if len(distinct) < 2:
        return None
    a, b = rng.sample(distinct, 2)
    if a.lower().rstrip("s") == b.lower().rstrip("s"):
        return None
    first, second = sorted((sentence.find(a), sentence.find(b)))
    one = a if sentence.startswith(a, first) else b
    two = b if one == a else a
    if first + len(one) > second:
        return None  # overlapping mentions
    return (
        sentence[:first]
        + _cased(two, one)
        + sentence[first + len(one) : second]
        + _cased(one, two)
        + sentence[second + len(two) :]
    )


def _cased(word: str, place: str) -> str:
    """``word`` written where ``place`` stood: "The tenant" at a sentence start, else "the"."""
    if word.startswith(("The ", "the ")):
        return ("T" if place[:1].isupper() else "t") + word[1:]
    return word


def drop_condition(sentence: str, rng: random.Random) -> str | None:
    """The rule without the condition it holds under."""
    options = [m for m in _CONDITION.finditer(sentence)]
    if options:
        match = rng.choice(options)
        out = sentence[: match.start()] + sentence[match.end() :]
    else:
        leading = _LEADING_CONDITION.match(sentence)
        if not leading:
            return None
        rest = sentence[leading.end() :]
        out = rest[:1].upper() + rest[1:]
    return out if len(out.split()) >= 4 else None
