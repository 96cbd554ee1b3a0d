"""Synthetic minimal edits: one sentence of the evidence, changed in one small way.

The standard augmentation for entailment models (as in FactCC, SummEdits): take a sentence
the evidence states, and make the claim from it by one edit that flips its truth (a number,
a unit, a date, a negation, a name, a quantifier, a direction, a condition) or adds a fact the
evidence lacks; faithful rewrites (the sentence itself, a clause of it, small rewordings) are
the positives. Each edit returns ``None`` when the sentence offers nothing to edit.

Used for training pairs (from training evidence) and for the probe set
``benchmarks/data/minimal_edit_probes.jsonl`` (from the sample vault, never trained on).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

CONTRADICTING = (
    "number",
    "unit",
    "date",
    "negation",
    "entity",
    "quantifier",
    "direction",
    "condition",
)
BASELESS = ("addition",)
FAITHFUL = ("copy", "clause", "reword")
EDIT_TYPES = CONTRADICTING + BASELESS + FAITHFUL
# The edits of ``restatement_edits`` (training only; the probe set keeps EDIT_TYPES).
MEANING_CONTRADICTING = ("modality", "agent")
MEANING_BASELESS = ("condition_dropped",)
MEANING_FAITHFUL = ("restate",)


@dataclass(frozen=True)
class Edit:
    claim: str
    kind: str
    entailed: int
    contradicted: int


_NUMBER = re.compile(r"(?<![\w.,-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w-]|\.\d)")
_REFERENCE = re.compile(r"\b(?:section|para|clause|table|figure|step|annex|version|v)\.?\s*$", re.I)
# "every 12 months" is a frequency, not a quantifier that "some" could replace.
_PERIODIC = re.compile(r"\s+(?:\d|other|day|week|month|year|quarter|hour|minute|business)", re.I)
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b")
_UNITS = [
    ("seconds", "minutes"),
    ("minutes", "hours"),
    ("hours", "days"),
    ("days", "weeks"),
    ("weeks", "months"),
    ("months", "years"),
    ("mm", "cm"),
    ("cm", "m"),
    ("kilometres", "miles"),
    ("km", "miles"),
    ("kg", "g"),
    ("MB", "GB"),
    ("GB", "TB"),
    ("percent", "points"),
    ("%", " percentage points"),
    ("million", "billion"),
    ("thousand", "million"),
]
_AUX = re.compile(
    r"\b(is|are|was|were|has|have|had|can|could|will|would|must|should|may|does|do|did)\b"
    r"(?! not\b| n't\b| never\b)"
)
_NEGATED = re.compile(r"\b(is|are|was|were|has|have|can|will|must|should|does|do|did) not\b")
_CONTRACTED = re.compile(r"\b(is|are|was|were|has|have|does|do|did)n't\b")
_QUANTIFIERS = [
    ("all", "some"),
    ("every", "some"),
    ("always", "sometimes"),
    ("never", "sometimes"),
    ("none", "some"),
    ("many", "few"),
    ("both", "neither"),
]
_DIRECTIONS = [
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("increases", "decreases"),
    ("rise", "fall"),
    ("rose", "fell"),
    ("more", "less"),
    ("higher", "lower"),
    ("greater", "smaller"),
    ("larger", "smaller"),
    ("longer", "shorter"),
    ("before", "after"),
    ("above", "below"),
    ("maximum", "minimum"),
    ("at least", "at most"),
    ("won", "lost"),
    ("gained", "lost"),
    ("earlier", "later"),
    ("first", "last"),
    ("up", "down"),
    ("open", "closed"),
    ("allowed", "prohibited"),
    ("accepted", "rejected"),
    ("approved", "rejected"),
    ("enabled", "disabled"),
    ("encrypted", "unencrypted"),
    ("required", "optional"),
    ("mandatory", "optional"),
    ("internal", "external"),
    ("public", "private"),
    ("supports", "opposes"),
    ("supported", "opposed"),
]
_CONDITIONS = [
    ("if", "unless"),
    ("unless", "if"),
    ("when", "unless"),
    ("with", "without"),
    ("without", "with"),
    ("must", "may"),
    ("only after", "before"),
    ("including", "excluding"),
]
_REWORDS = [
    ("approximately", "about"),
    ("purchased", "bought"),
    ("bought", "purchased"),
    ("because", "since"),
    ("however", "but"),
    ("large", "big"),
    ("big", "large"),
    ("begin", "start"),
    ("began", "started"),
    ("started", "began"),
    ("said", "stated"),
    ("stated", "said"),
    ("help", "assist"),
    ("also", "additionally"),
    ("died", "passed away"),
    ("quickly", "rapidly"),
    ("reported", "said"),
    ("people", "individuals"),
    ("customers", "clients"),
    ("per cent", "percent"),
]
_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b([A-Z][a-z]+(?: [A-Z][a-z]+)*)\b")
_NOT_NAMES = {"the", "a", "an", "i", "it", "this", "section", "para", "table", "figure", "annex"}
_ADDITIONS = (
    ", according to a {year} internal review",
    " in {place}",
    ", at a cost of ${amount} million",
    ", for the first time since {year}",
    ", as confirmed by {name}",
    " after a {number}-month review",
    ", following complaints from {name}",
)
_PLACES = ("Paris", "Singapore", "Toronto", "Nairobi", "Melbourne", "Oslo", "Lima", "Osaka")
_PEOPLE = ("John Carter", "Maria Lopez", "the European Commission", "Dr. Alan Reed", "Acme Corp")
_SMALL = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]


def _word_swap(
    sentence: str, pairs: Sequence[tuple[str, str]], rng: random.Random, both_ways: bool = True
) -> str | None:
    """Swap one listed word for its partner (both ways unless told), keeping capitalisation."""
    options = []
    for a, b in pairs:
        for old, new in ((a, b), (b, a)) if both_ways else ((a, b),):
            for match in re.finditer(rf"\b{re.escape(old)}\b", sentence, re.IGNORECASE):
                if not _PERIODIC.match(sentence, match.end()) or old.lower() not in (
                    "every",
                    "each",
                ):
                    options.append((match, new))
    return splice_one(sentence, options, rng)


def splice_one(
    sentence: str, options: Sequence[tuple[re.Match[str], str]], rng: random.Random
) -> str | None:
    """One of ``options`` (a match and its replacement) written in, keeping capitalisation."""
    if not options:
        return None
    match, new = rng.choice(options)
    if match.group()[0].isupper():
        new = new[0].upper() + new[1:]
    return sentence[: match.start()] + new + sentence[match.end() :]


def _other_number(text: str, rng: random.Random) -> str:
    plain = text.replace(",", "")
    value = float(plain)
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    for _ in range(10):
        factor = rng.choice((0.5, 0.75, 1.5, 2, 3, 10))
        shift = rng.choice((-2, -1, 1, 2, 5))
        new = value * factor if value > 4 and rng.random() < 0.6 else value + shift
        if new > 0 and round(new, decimals) != value:
            new = round(new, decimals)
            out = f"{new:.{decimals}f}" if decimals else str(int(new))
            return f"{int(out):,}" if "," in text and not decimals else out
    return str(int(value) + 1) if not decimals else f"{value + 1:.{decimals}f}"


def edit_number(sentence: str, rng: random.Random) -> str | None:
    matches = [
        m
        for m in _NUMBER.finditer(sentence)
        if not _YEAR.fullmatch(m.group()) and not _REFERENCE.search(sentence[: m.start()])
    ]
    if not matches:
        return None
    match = rng.choice(matches)
    return sentence[: match.start()] + _other_number(match.group(), rng) + sentence[match.end() :]


def edit_unit(sentence: str, rng: random.Random) -> str | None:
    options = []
    for a, b in _UNITS:
        for old, new in ((a, b), (b, a)):
            for match in re.finditer(rf"(?<=\d)(\s?){re.escape(old)}\b", sentence):
                options.append((match, new))
    if not options:
        return None
    match, new = rng.choice(options)
    spacer = "" if new == "%" else " "
    return sentence[: match.start()] + spacer + new.strip() + sentence[match.end() :]


def edit_date(sentence: str, rng: random.Random) -> str | None:
    years = list(_YEAR.finditer(sentence))
    months = list(_MONTH.finditer(sentence))
    if not years and not months:
        return None
    if years and (not months or rng.random() < 0.6):
        match = rng.choice(years)
        new = str(int(match.group()) + rng.choice((-3, -2, -1, 1, 2, 4)))
    else:
        match = rng.choice(months)
        new = rng.choice([m for m in _MONTHS if m != match.group()])
    return sentence[: match.start()] + new + sentence[match.end() :]


def edit_negation(sentence: str, rng: random.Random) -> str | None:
    negated = list(_NEGATED.finditer(sentence))
    contracted = list(_CONTRACTED.finditer(sentence))
    if negated or contracted:
        match = rng.choice(negated + contracted)
        return sentence[: match.start()] + match.group(1) + sentence[match.end() :]
    if re.search(r"\bnever\b", sentence):
        return re.sub(r"\bnever\b", "always", sentence, count=1)
    matches = list(_AUX.finditer(sentence))
    if matches:
        match = rng.choice(matches)
        return sentence[: match.end()] + " not" + sentence[match.end() :]
    return None


def names(text: str) -> list[str]:
    """Capitalised word runs not at a sentence start: people, places, organisations.

    A single capitalised word whose lowercase form the text also uses ("Key", "Least") is a
    title-cased common word, not a name.
    """
    lowered = set(re.findall(r"\b[a-z]+\b", text))
    found = {m.group(1) for m in _NAME.finditer(text)}
    return sorted(
        n
        for n in found
        if n.lower().split()[0] not in _NOT_NAMES and (" " in n or n.lower() not in lowered)
    )


def edit_entity(sentence: str, rng: random.Random, pool: Sequence[str]) -> str | None:
    own = names(sentence)
    if not own:
        return None
    target = rng.choice(own)
    candidates = [n for n in pool if n != target and n not in sentence and n not in target]
    if not candidates:
        candidates = [p for p in _PLACES + _PEOPLE if p not in sentence]
    return sentence.replace(target, rng.choice(candidates), 1)


def edit_addition(sentence: str, rng: random.Random) -> str | None:
    body = sentence.rstrip(" .!?;:,")
    if len(body.split()) < 4:
        return None
    addition = rng.choice(_ADDITIONS).format(
        year=rng.randint(1995, 2023),
        place=rng.choice([p for p in _PLACES if p not in sentence]),
        amount=rng.choice((3, 12, 45, 250)),
        name=rng.choice(_PEOPLE),
        number=rng.choice((3, 6, 18)),
    )
    return body + addition + "."


_CONDITIONAL = re.compile(
    r"\s*(?:only|if|unless|provided|as long as|except|when|once|subject to)\b", re.IGNORECASE
)


def faithful_clause(sentence: str, rng: random.Random) -> str | None:
    """A self-contained part of the sentence: before a comma/semicolon, or minus brackets."""
    without_brackets = re.sub(r"\s*\([^)]*\)", "", sentence)
    if without_brackets != sentence and len(without_brackets.split()) >= 5:
        return without_brackets
    cut = re.search(r"[,;:]\s|\s(?:and|but|which|while|who)\s", sentence)
    if cut and _CONDITIONAL.match(sentence, cut.end()):
        return None  # the part before a condition is not what the sentence says
    if cut and len(sentence[: cut.start()].split()) >= 5:
        return sentence[: cut.start()].rstrip() + "."
    return None


def faithful_reword(sentence: str, rng: random.Random) -> str | None:
    out = _word_swap(sentence, _REWORDS, rng, both_ways=False)
    if out is None:
        small = list(re.finditer(r"(?<![.\d-])\b([0-9]|1[0-2])\b(?![.,]\d)(?=\s+[a-z])", sentence))
        if not small:
            return None
        match = rng.choice(small)
        out = sentence[: match.start()] + _SMALL[int(match.group())] + sentence[match.end() :]
    return out


def make_edit(
    kind: str, sentence: str, rng: random.Random, pool: Sequence[str] = ()
) -> Edit | None:
    """One edit of ``kind`` applied to ``sentence``, or ``None`` when it does not apply."""
    from benchmarks import restatement_edits  # it builds on this module's helpers

    simple: dict[str, Callable[[str, random.Random], str | None]] = {
        "number": edit_number,
        "unit": edit_unit,
        "date": edit_date,
        "negation": edit_negation,
        "quantifier": lambda s, r: _word_swap(s, _QUANTIFIERS, r),
        "direction": lambda s, r: _word_swap(s, _DIRECTIONS, r),
        "condition": lambda s, r: _word_swap(s, _CONDITIONS, r),
        "clause": faithful_clause,
        "reword": faithful_reword,
        "copy": lambda s, r: s,
        "restate": restatement_edits.restate,
        "modality": restatement_edits.edit_modality,
        "agent": restatement_edits.edit_agent,
        "condition_dropped": restatement_edits.drop_condition,
    }
    if kind == "entity":
        claim = edit_entity(sentence, rng, pool)
    elif kind == "addition":
        claim = edit_addition(sentence, rng)
    else:
        claim = simple[kind](sentence, rng)
    faithful = FAITHFUL + MEANING_FAITHFUL
    if claim is None or (kind not in faithful and claim == sentence):
        return None
    if kind in faithful:
        return Edit(claim, kind, 1, 0)
    return Edit(claim, kind, 0, int(kind in CONTRADICTING + MEANING_CONTRADICTING))


def edits_for(
    sentence: str, rng: random.Random, pool: Sequence[str] = (), kinds: Sequence[str] = EDIT_TYPES
) -> list[Edit]:
    """Every applicable edit of ``sentence`` among ``kinds``."""
    out = []
    for kind in kinds:
        edit = make_edit(kind, sentence, rng, pool)
        if edit is not None:
            out.append(edit)
    return out
