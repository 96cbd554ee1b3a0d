"""Are a claim's specifics grounded in its evidence, about the same thing?

Each specific of the claim (``audit_pipeline.specifics``) is looked for in every unit of the
evidence (``evidence_units.py``), not only the best sentence:

- **grounded**: the evidence states the same value (on one scale: "annually" is "every 12
  months", "60 minutes" is "1 hour") about the same thing, or the same name or identifier;
- **clash**: where the evidence speaks of the same thing, it states another value of the same
  kind ("quarterly" where it says every 12 months, "Deloitte" as the issuer where it names Harrow
  & Vale LLP, "4 hours" as the RPO where the table's RPO column says 1 hour). The claim is
  contradicted;
- **absent**: the evidence states it nowhere and says nothing else about the same thing (a
  vendor, place or number it never mentions). The claim is unsupported: absence is never a
  contradiction.

"The same thing" is measured by the specific's context (what the claim says it about, from the
dependency parse) against the context of each evidence value: its own clause, or a table
cell's row label and column header.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from audit_pipeline.specifics.extract import (
    Kind,
    Specific,
    extract_many,
    extract_specifics,
    name_words,
)
from audit_pipeline.specifics.measures import FREQUENCY_WORDS, PERIOD_NOUNS, same_value
from audit_pipeline.specifics.quantities import NUMBER_WORDS, quantity_keys
from audit_pipeline.text import wordlists
from audit_pipeline.text.tokens import content_stems, raw_tokens, stem
from audit_pipeline.verification.batch import Batch
from audit_pipeline.verification.evidence_units import EvidenceUnit, evidence_unit_analysis
from audit_pipeline.verification.signals import NAME_ALIASES, acronym_expansions

# These shares and lengths are not stage parameters: the specifics analysis is computed once
# per batch and read by the specifics check, the entailment check, the learned reading's error
# spans and the alignment features (a value the evidence states in other words is read in its
# words first), so changing one changes the features the fitted model was trained on and needs
# a refit (``python -m benchmarks.train_verifier``).
# A counterpart stands for "the same thing" when it shares at least half of the claim
# specific's context (and at least one word).
MIN_SHARED_SHARE = 0.5
# Context words compare on their first letters (a stemmer leaves "respond" and "response").
ROOT_LETTERS = 6
# A matching value counts unless a differing one is clearly better aligned.
EQUAL_ALIGNMENT_SHARE = 0.75
# The shortest word start that matches a longer form of the same word.
PREFIX_LETTERS = 4
# Words that may state a value without a digit (``verification/words/value_hints.txt``).
_VALUE_HINTS = (
    frozenset(FREQUENCY_WORDS)
    | frozenset(PERIOD_NOUNS)
    | NUMBER_WORDS
    | wordlists.words("verification", "value_hints")
)


_LETTERS = re.compile(r"[a-z]+")
_RECORD_LINE = re.compile(r"[^:.!?\n]{1,60}:\s")


_EXACT_KINDS = frozenset({Kind.MONEY, Kind.PERCENT, Kind.COUNT})


class Grounding(StrEnum):
    GROUNDED = "grounded"
    CLASH = "clash"
    ABSENT = "absent"


@dataclass(frozen=True)
class SpecificFinding:
    """What the evidence says about one specific of a claim."""

    specific: Specific
    status: Grounding
    # The evidence's wording of the value: the differing one (a clash), or the same value in
    # the evidence's own words ("1 hour" for the claim's "60 minutes").
    counterpart: str = ""
    evidence: str = ""  # the evidence unit it was found in or compared with
    chunk_id: str = ""

    def describe(self) -> str:
        surface = self.specific.surface
        if self.status is Grounding.CLASH:
            snippet = self.evidence if len(self.evidence) <= 120 else self.evidence[:117] + "..."
            return f"{surface!r} where the evidence says {self.counterpart!r} ({snippet!r})"
        if self.status is Grounding.ABSENT:
            return f"{surface!r} is stated nowhere in the evidence"
        return f"{surface!r} is in the evidence"


@dataclass(frozen=True)
class _Located:
    specific: Specific
    unit: EvidenceUnit


def might_hold_values(text: str) -> bool:
    return any(ch.isdigit() for ch in text) or any(
        word in _VALUE_HINTS for word in _LETTERS.findall(text.lower())
    )


def _located(units: Sequence[EvidenceUnit]) -> list[_Located]:
    todo = [u for u in units if might_hold_values(u.text)]
    found = extract_many([u.text for u in todo])
    return [
        _Located(s, unit) for unit, specifics in zip(todo, found, strict=True) for s in specifics
    ]


def _context_of(located: _Located) -> frozenset[str]:
    if located.unit.about is not None:
        return located.unit.about
    return located.specific.context


def roots(stems: frozenset[str]) -> frozenset[str]:
    """Stems cut to six letters, so "respond" meets "response" and "effect" "effective"."""
    return frozenset(s[:ROOT_LETTERS] for s in stems)


def shared_roots(claim: frozenset[str], evidence: frozenset[str]) -> frozenset[str]:
    """The claim's roots that the evidence has, as they are or as the start of a longer
    form of at least four letters ("driv" of "drivers", "loader" of "load"): the stemmer
    leaves agent nouns and some inflections apart."""
    exact = claim & evidence
    rest = [w for w in claim - exact if len(w) >= PREFIX_LETTERS]
    if not rest:
        return exact
    longer = [e for e in evidence - exact if len(e) >= PREFIX_LETTERS]
    return exact | frozenset(
        w for w in rest if any(e.startswith(w) or w.startswith(e) for e in longer)
    )


def _alignment(
    specific: Specific, located: _Located, weight: Mapping[str, float]
) -> tuple[int, float]:
    """(shared context words, a score weighing them by how rare they are in the evidence, with
    the whole unit's words breaking ties): a word every sentence of the evidence uses (the
    company's name) says little about which of them the claim's value is about."""
    context = roots(specific.context)
    shared = shared_roots(context, roots(_context_of(located)))
    around = shared_roots(context, roots(located.unit.stems))
    score = sum(weight.get(w, 1.0) for w in shared) + 0.25 * sum(weight.get(w, 1.0) for w in around)
    return len(shared), score


def _cell_score(specific: Specific, located: _Located, weight: Mapping[str, float]) -> float | None:
    """How much of what the claim says its value is about a table cell's row label and
    column header name (None for a sentence)."""
    if located.unit.cell is None:
        return None
    cell = roots(located.unit.cell)
    return sum(weight.get(w, 1.0) for w in shared_roots(roots(specific.context), cell))


def _weights(units: Sequence[EvidenceUnit]) -> dict[str, float]:
    """Smoothed inverse document frequency of each word root over the evidence units."""
    frequency: Counter[str] = Counter()
    for unit in units:
        frequency.update(roots(unit.stems | (unit.about or frozenset())))
    total = len(units)
    return {w: math.log((1 + total) / (1 + n)) + 1.0 for w, n in frequency.items()}


def _aligned(specific: Specific, shared: int) -> bool:
    return shared >= 1 and shared >= MIN_SHARED_SHARE * len(specific.context)


def _equal(claim: Specific, evidence: Specific) -> bool:
    if claim.kind is Kind.DATE:
        return (
            claim.date is not None
            and evidence.date is not None
            and claim.date.agrees(evidence.date)
            and claim.date.shares_a_part(evidence.date)
        )
    if claim.kind is Kind.IDENTIFIER:
        return claim.key == evidence.key
    exact = (claim.unit and claim.unit == evidence.unit) or claim.kind in _EXACT_KINDS
    if exact:
        # Written in the same unit: the same number ("99.9%" is not "99.5%"); only values
        # converted between units ("90 days", "quarterly") are the same within a tolerance.
        return (claim.low, claim.high) == (evidence.low, evidence.high) or (
            claim.low == claim.high and claim.low in (evidence.low, evidence.high)
        )
    if same_value(claim.low, claim.high, evidence.low, evidence.high):
        return True
    # One end of the evidence's range ("3 days" of "2-3 days"); a value strictly inside a range
    # ("£7,500" of "between £5,000 and £50,000") is another statement, and a range must match.
    return claim.low == claim.high and (
        same_value(claim.low, claim.low, evidence.low, evidence.low)
        or same_value(claim.low, claim.low, evidence.high, evidence.high)
    )


def _comparable(claim: Specific, evidence: Specific) -> bool:
    if claim.kind is Kind.DATE:
        # A bare year ("in 2011") is narrated too loosely to hold against the evidence's dates.
        return (
            evidence.kind is Kind.DATE
            and claim.date is not None
            and claim.date.month is not None
            and evidence.date is not None
            and evidence.date.month is not None
            and claim.date.shares_a_part(evidence.date)
        )
    return evidence.dimension == claim.dimension and evidence.kind is not Kind.NAME


def _ground_value(
    specific: Specific,
    located: Sequence[_Located],
    loose_keys: set[tuple[str, float]],
    located_units: Sequence[EvidenceUnit],
    weight: Mapping[str, float],
    siblings: Sequence[Specific] = (),
    claim_roots: frozenset[str] = frozenset(),
) -> SpecificFinding:
    """Grounded when the evidence states the same value anywhere, unless a table says the
    value belongs to another column ("4 hours" is the RTO, the RPO column says 1 hour). Where it
    states the value nowhere, a differing value about the same thing is a clash.

    A differing evidence value that the claim states too (``siblings``: its other specifics) is
    no rival: "DOT 4 only; DOT 5 must never be used" names both, and a parse that hangs "DOT 4"
    on the DOT 5 clause must not read the evidence's "DOT 5" as its other value. A table cell
    still is: its row and column say what it is about, so swapped cells clash.

    ``claim_roots`` are the roots of all the claim's words: a sentence stating the same value
    is outweighed only by one that says at least as much of the whole claim. The parse may hang
    the value on a verb ("costs the student £10") and leave its subject ("replacing a lost bus
    pass") out of the value's context; the sentence that says "loses a bus pass pays £10" is
    still more about the claim than one saying "music lessons cost £12"."""
    best_equal: tuple[float, int, _Located, bool] | None = None
    best_other: tuple[float, int, _Located] | None = None
    # The best (cell score, alignment) of an equal value among table cells, and of a
    # differing one with its shared words and place.
    equal_cell: tuple[float, float] | None = None
    other_cell: tuple[float, float, int, _Located] | None = None
    context = roots(specific.context)
    for candidate in located:
        if not _comparable(specific, candidate.specific):
            continue
        shared, score = _alignment(specific, candidate, weight)
        cell = _cell_score(specific, candidate, weight)
        if _equal(specific, candidate.specific):
            # The same value in a sentence that says what the claim says it about counts, even
            # where the parse attaches the value elsewhere in it.
            whole = shared >= len(context)
            around = shared_roots(context, roots(candidate.unit.stems))
            shared = max(shared, len(around))
            score = max(score, sum(weight.get(w, 1.0) for w in around))
            if best_equal is None or score > best_equal[0]:
                best_equal = (score, shared, candidate, whole)
            if cell is not None:
                equal_cell = max((cell, score), equal_cell or (0.0, 0.0))
            continue
        if candidate.unit.about is None and any(_equal(s, candidate.specific) for s in siblings):
            continue
        if cell is not None and (other_cell is None or (cell, score) > other_cell[:2]):
            other_cell = (cell, score, shared, candidate)
        if best_other is None or score > best_other[0]:
            best_other = (score, shared, candidate)
    if best_equal is not None:
        # The same value said about something less related does not outweigh a differing
        # value clearly about this thing; in a table, where a value's row and column say
        # exactly what it is about, the cell whose row and column match the claim better
        # decides (the heading above a table is the same for all its cells), and between
        # equally matching cells of two tables, the one under the better matching heading.
        rival = best_other[2] if best_other is not None else None
        if best_equal[2].unit.cell is not None and equal_cell and other_cell:
            outweighed = _aligned(specific, other_cell[2]) and equal_cell < other_cell[:2]
            rival = other_cell[3]
        else:
            # A sentence whose parse says the same value is about everything the claim says
            # it is about (its whole context) is not outweighed by another sentence: the
            # evidence may state two periods or two dates about one subject ("covers 1 April
            # 2025 to 31 March 2026"; "the next period covers 1 April 2026 through …").
            outweighed = (
                not best_equal[3]
                and best_other is not None
                and _aligned(specific, best_other[1])
                and best_equal[0] < EQUAL_ALIGNMENT_SHARE * best_other[0]
                and _says_as_much(best_other[2].unit, best_equal[2].unit, claim_roots)
            )
        if outweighed and rival is not None:
            return SpecificFinding(
                specific,
                Grounding.CLASH,
                rival.specific.surface,
                rival.unit.text,
                rival.unit.chunk_id,
            )
        unit = best_equal[2].unit
        return SpecificFinding(
            specific, Grounding.GROUNDED, best_equal[2].specific.surface, unit.text, unit.chunk_id
        )
    if specific.kind is Kind.COUNT and _count_stated(specific, located_units):
        # A count whose number the evidence states beside the counted word in another form
        # ("stars: 2.5" for "2.5 stars"): a record or a list rarely says it as a phrase.
        return SpecificFinding(specific, Grounding.GROUNDED)
    if best_other is not None and _aligned(specific, best_other[1]):
        other = best_other[2]
        return SpecificFinding(
            specific, Grounding.CLASH, other.specific.surface, other.unit.text, other.unit.chunk_id
        )
    if (
        best_equal is not None
        or not _fabrication_checked(specific)
        or _loosely_stated(specific, loose_keys)
    ):
        return SpecificFinding(specific, Grounding.GROUNDED)
    return SpecificFinding(specific, Grounding.ABSENT)


def _says_as_much(rival: EvidenceUnit, equal: EvidenceUnit, claim_roots: frozenset[str]) -> bool:
    """Whether the rival unit shares at least as many of the claim's word roots as the unit
    that states the claim's value."""
    if not claim_roots:
        return True
    rival_shared = shared_roots(claim_roots, roots(rival.stems))
    return len(rival_shared) >= len(shared_roots(claim_roots, roots(equal.stems)))


def _fabrication_checked(specific: Specific) -> bool:
    """Whether a value the evidence never states is a fabrication. Counts ("two predecessors")
    and frequencies without a number ("every day") are often inferred from what the evidence
    lists, and a bare month or year from what it narrates; an amount, a percentage, a measure
    or a full date is not."""
    if specific.kind in (Kind.COUNT, Kind.FREQUENCY):
        return False
    if specific.kind is Kind.DATE:
        date = specific.date
        return (
            date is not None
            and date.month is not None
            and (date.day is not None or date.year is not None)
        )
    return True


def _count_stated(specific: Specific, units: Sequence[EvidenceUnit]) -> bool:
    """The count's number is a record's value under a key that names the counted noun
    ("review stars: 2.5" for "2.5 stars")."""
    noun = stem(specific.dimension.removeprefix("count:"))
    wanted = quantity_keys(specific.surface)
    return any(
        _RECORD_LINE.match(unit.text) and noun in unit.stems and wanted & quantity_keys(unit.text)
        for unit in units
    )


def _loosely_stated(specific: Specific, keys: set[tuple[str, float]]) -> bool:
    """Stated somewhere in whatever form, though about nothing the claim aligns with: an
    identifier, or a number the evidence gives bare ("Keonna Thomas, 30," for "a 30-year
    sentence"). Not a fabrication; the learned model weighs where it stands. Dates must be
    stated as dates."""
    if specific.kind is Kind.IDENTIFIER:
        return (specific.key, 0.0) in keys
    if specific.kind is Kind.DATE:
        # Written some other way ("2003.06.11", "Sep 23, 2015"): its year and day are there.
        date = specific.date
        parts = [p for p in (date.year, date.day) if p is not None] if date else []
        return bool(parts) and all(("n", float(p)) in keys for p in parts)
    return bool(quantity_keys(specific.surface) & keys)


@dataclass(frozen=True)
class _EvidenceWords:
    lowered: str
    words: frozenset[str]
    stems: frozenset[str]
    acronyms: frozenset[str]


def _evidence_words(units: Sequence[EvidenceUnit]) -> _EvidenceWords:
    return _words_of("\n".join(u.text for u in units))


@lru_cache(maxsize=256)
def _words_of(text: str) -> _EvidenceWords:
    """The words of one claim's evidence; the claims of one answer often share it."""
    words = frozenset(name_words(text)) | frozenset(t.lower() for t in raw_tokens(text))
    return _EvidenceWords(
        text.lower(),
        words,
        frozenset(stem(w) for w in words),
        frozenset(acronym_expansions(text)),
    )


def _name_found(specific: Specific, evidence: _EvidenceWords) -> bool:
    words = specific.name_words() or tuple(specific.key.split())
    if not words:
        return True
    if specific.label == "PERSON" and any(
        len(word) >= 3 and word in evidence.words for word in words
    ):
        return True  # "Felicia Cannon" where the evidence says "Felicia"
    if specific.key.replace(" ", "") in evidence.acronyms:
        return True  # "AWS" where the evidence says "Amazon Web Services"
    spelled = acronym_expansions(specific.surface)
    if any(acronym in evidence.words for acronym in spelled):
        return True  # "Amazon Web Services" where it says "AWS"
    if "".join(words) in evidence.words:
        return True  # "Tech Crunch" where the evidence says "TechCrunch"
    return all(
        word in evidence.words
        or stem(word) in evidence.stems
        or any(alias in evidence.lowered for alias in NAME_ALIASES.get(word, ()))
        or _spelled_otherwise(word, evidence.words)
        for word in words
    )


def _spelled_otherwise(word: str, words: frozenset[str]) -> bool:
    """A long word the evidence spells with one letter more or less ("Arniko" / "Araniko"):
    a transliteration, not another name. Short words differ by one letter too often."""
    if len(word) < 6:
        return False
    for other in words:
        if abs(len(other) - len(word)) != 1:
            continue
        shorter, longer = sorted((word, other), key=len)
        if any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer))):
            return True
    return False


def _ground_name(
    specific: Specific, units: Sequence[EvidenceUnit], evidence: _EvidenceWords, claim_words: str
) -> SpecificFinding:
    if _name_found(specific, evidence):
        return SpecificFinding(specific, Grounding.GROUNDED)
    best: tuple[int, EvidenceUnit] | None = None
    for unit in units:
        if _RECORD_LINE.match(unit.text):
            continue  # a record's key names a field, not who did what
        shared = len(shared_roots(roots(specific.context), roots(unit.stems)))
        if best is None or shared > best[0]:
            best = (shared, unit)
    if best is not None and _aligned(specific, best[0]):
        rivals = [
            other
            for other in extract_specifics(best[1].text)
            if other.kind is Kind.NAME
            and _compatible_labels(specific.label, other.label)
            and not any(word in claim_words for word in other.name_words())
        ]
        if rivals:
            return SpecificFinding(
                specific, Grounding.CLASH, rivals[0].surface, best[1].text, best[1].chunk_id
            )
    return SpecificFinding(specific, Grounding.ABSENT)


_LABEL_GROUPS = ({"ORG", "PERSON", "PRODUCT"}, {"GPE", "LOC", "FAC"})


def _compatible_labels(a: str, b: str) -> bool:
    return a == b or any(a in group and b in group for group in _LABEL_GROUPS)


def check_specifics(claim: str, units: Sequence[EvidenceUnit]) -> tuple[SpecificFinding, ...]:
    """One finding per specific of ``claim`` against all its evidence units."""
    specifics = extract_specifics(claim)
    if not specifics or not units:
        return ()
    located: list[_Located] | None = None
    loose: set[tuple[str, float]] | None = None
    weight: dict[str, float] | None = None
    words: _EvidenceWords | None = None
    claim_roots = roots(frozenset(content_stems(claim)))
    findings: list[SpecificFinding] = []
    for specific in specifics:
        if specific.kind is Kind.NAME:
            words = words or _evidence_words(units)
            findings.append(_ground_name(specific, units, words, claim.lower()))
            continue
        if specific.kind is Kind.IDENTIFIER and not specific.key.startswith("id:"):
            words = words or _evidence_words(units)
            if specific.key in words.lowered:
                findings.append(SpecificFinding(specific, Grounding.GROUNDED))
                continue
        located = located if located is not None else _located(units)
        if loose is None:
            loose = set().union(*(quantity_keys(u.text) for u in units))
        weight = weight if weight is not None else _weights(units)
        siblings = [
            s
            for s in specifics
            if s is not specific and s.kind is specific.kind and not s.is_bare_year
        ]
        findings.append(
            _ground_value(specific, located, loose, units, weight, siblings, claim_roots)
        )
    return tuple(findings)


@dataclass(frozen=True)
class Reworded:
    """A claim with its values written as the evidence writes them, and the way back.

    ``edits`` are (start, end) in the original claim and (start, end) in ``text`` of each
    replaced value, in order.
    """

    original: str
    text: str
    edits: tuple[tuple[int, int, int, int], ...] = ()

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """A span of ``text`` as a span of the original claim (a span inside a replaced value
        becomes the whole original value)."""
        return self._map(start, at_end=False), self._map(end, at_end=True)

    def _map(self, position: int, at_end: bool) -> int:
        shift = 0
        for old_start, old_end, new_start, new_end in self.edits:
            if position < new_start or (at_end and position == new_start):
                break
            if position < new_end:
                return old_end if at_end else old_start
            shift = old_end - new_end
        return position + shift


def in_evidence_wording(claim: str, findings: Sequence[SpecificFinding]) -> Reworded:
    """``claim`` with each value the evidence states in other words ("60 minutes", "annually")
    written as the evidence writes it ("1 hour", "every 12 months"): word overlap and a reader
    that never learnt unit conversions then see a faithful restatement as the evidence's own
    words."""
    replaced = [
        f
        for f in sorted(findings, key=lambda f: f.specific.start)
        if f.status is Grounding.GROUNDED
        and f.counterpart
        and f.specific.is_value
        and f.counterpart.lower() != f.specific.surface.lower()
    ]
    pieces: list[str] = []
    edits: list[tuple[int, int, int, int]] = []
    cursor = length = 0
    for finding in replaced:
        value = finding.specific
        if value.start < cursor:
            continue
        pieces.append(claim[cursor : value.start])
        length += value.start - cursor
        edits.append((value.start, value.end, length, length + len(finding.counterpart)))
        pieces.append(finding.counterpart)
        length += len(finding.counterpart)
        cursor = value.end
    pieces.append(claim[cursor:])
    return Reworded(claim, "".join(pieces), tuple(edits))


def specifics_analysis(batch: Batch) -> list[tuple[SpecificFinding, ...]]:
    """What all its evidence says about each specific of every claim of ``batch``. The claims,
    and the evidence units that may state a value of a claim that has values, are parsed in
    one batch each: spaCy reads a batch of texts faster than the same texts one at a time."""
    claims = [claim.text for claim in batch.claims]
    unit_sets = batch.analysis(evidence_unit_analysis)
    found = extract_many(claims)
    wanted = {
        unit.text
        for specifics, units in zip(found, unit_sets, strict=True)
        if any(s.kind is not Kind.NAME for s in specifics)
        for unit in units
        if might_hold_values(unit.text)
    }
    extract_many(sorted(wanted))
    return [check_specifics(claim, units) for claim, units in zip(claims, unit_sets, strict=True)]
