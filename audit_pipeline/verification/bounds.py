"""Direction: does the claim bound a value from the side the evidence bounds it?

"Chilled food is kept at 5 °C or above" says every word and the value of "5 °C or below";
word overlap, the specifics check (the value is right) and the cross-encoder all pass it. What
changed is the side of the bound: a floor ("at least", "or above", "more than") where the
evidence states a ceiling ("up to", "or below", "within"), or the reverse. Here each value of a
claim gets the side the words around it give (``words/bound_phrases.txt``); the evidence values
equal to it (same dimension, same amount in any unit, ``specifics``) in passages about the same
thing get theirs, and a claim whose bound every such evidence value states the other way round
is a contradiction. "Before" and "after" a named event are the same reading without a value:
"after their shift" where the evidence says "before starting a shift".

What keeps a faithful restatement clear: only a value stated with a side on both sides is
compared (a bare "5 °C" bounds nothing); one evidence value on the claim's side, or without a
side, clears it; a negation just before the phrase turns it ("must not take more than 8" is
"no more than 8"); a deadline written as "no later than 2 weeks before" the event is a floor
on the notice ("at least 2 weeks before").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from audit_pipeline.specifics.extract import Specific, extract_many
from audit_pipeline.specifics.language import parse_many
from audit_pipeline.specifics.measures import same_value
from audit_pipeline.text import wordlists
from audit_pipeline.text.tokens import content_stems, stem
from audit_pipeline.verification.batch import Batch
from audit_pipeline.verification.evidence_units import EvidenceUnit, evidence_unit_analysis
from audit_pipeline.verification.polarity import Clause, read_clause, same_predicate
from audit_pipeline.verification.slot_clash import SlotClash
from audit_pipeline.verification.specifics_check import MIN_SHARED_SHARE, roots, shared_roots

FLOOR, CEILING = ">=", "<="
_PHRASES = wordlists.pairs("verification", "bound_phrases")
# Written before the value ("at least ...") and after it ("or above"), longest first so "no
# more than" is read before "more than".
_BEFORE = sorted(
    ((p.removesuffix(" ...").split(), side) for p, side in _PHRASES.items() if p.endswith("...")),
    key=lambda item: -len(item[0]),
)
_AFTER = sorted(
    ((p.split(), side) for p, side in _PHRASES.items() if not p.endswith("...")),
    key=lambda item: -len(item[0]),
)
if {side for _, side in (*_BEFORE, *_AFTER)} - {FLOOR, CEILING}:
    raise wordlists.WordListError(
        f"{wordlists.location('verification', 'bound_phrases')}: a side is >= or <="
    )
# The words of the phrases ("capped" of "capped at" is no predicate of its own).
_PHRASE_WORDS = frozenset(w for phrase, _ in (*_BEFORE, *_AFTER) for w in phrase)
# A deadline phrase ("no later than") before a span that runs back from an event ("2 weeks
# before the trip") bounds the notice from below.
_DEADLINE_PHRASES = frozenset({"no later than", "not later than"})
_BACKWARDS = ("before", "in advance", "ahead", "prior")
_NEGATIONS = frozenset({"not", "n't", "never", "cannot"})
# How many words before a bound phrase a negation turns it ("must not take more than").
_NEGATION_REACH = 3
# The words before and after an event that place something on one side of it.
_TEMPORAL = {"before": "after", "after": "before"}
# The shortest word that names an event ("am" and "pm" do not).
_EVENT_WORD_LETTERS = 3
# Evidence is about the same thing when it shares this many of the claim's content words, and
# this share of them.
MIN_SHARED = 2
MIN_SHARE = 0.4


@dataclass(frozen=True)
class Bound:
    """A value and the side the text bounds it from, with the words that say so."""

    value: Specific
    side: str
    phrase: str


def _words(text: str) -> list[str]:
    return text.lower().replace("n't", " n't").split()


def _side_of(value: Specific, text: str) -> tuple[str, str] | None:
    """The side the words around ``value`` bound it from, and those words."""
    before = _words(text[: value.start])
    after = [w.strip(".,;:|()") for w in _words(text[value.end :])[:4]]
    for phrase, side in _BEFORE:
        if before[-len(phrase) :] != phrase:
            continue
        written = " ".join(phrase)
        if written in _DEADLINE_PHRASES and " ".join(after).startswith(_BACKWARDS):
            side = FLOOR if side == CEILING else CEILING
        negated = _NEGATIONS & set(before[-len(phrase) - _NEGATION_REACH : -len(phrase)])
        if negated and phrase[0] not in ("no", "not"):
            side = FLOOR if side == CEILING else CEILING
            written = f"{sorted(negated)[0]} ... {written}"
        return side, f"{written} {value.surface}"
    # A count's phrase may follow the counted noun: "8 tablets or more".
    counted = value.dimension.removeprefix("count:") if value.dimension.startswith("count:") else ""
    skip = 1 if counted and after and stem(after[0]) == counted else 0
    for phrase, side in _AFTER:
        if after[skip : skip + len(phrase)] == phrase:
            return side, f"{value.surface} {' '.join(after[: skip + len(phrase)])}"
    return None


@lru_cache(maxsize=8192)
def bounds_of(text: str) -> tuple[Bound, ...]:
    """The values of ``text`` that its words bound from one side."""
    found = []
    for value in extract_many([text])[0]:
        if not value.is_value:
            continue
        side = _side_of(value, text)
        if side is not None:
            found.append(Bound(value, *side))
    return tuple(found)


def _equal(a: Specific, b: Specific) -> bool:
    return a.dimension == b.dimension and same_value(a.low, a.high, b.low, b.high)


def _about_same(claim_stems: frozenset[str], unit: EvidenceUnit) -> bool:
    """Whether a passage says enough of the claim's words to be about what it says: a
    passage about the other case of the same threshold ("repairs over £10,000: we choose the
    builder" against "under £10,000 you may use your own") says few of them."""
    shared = len(claim_stems & (unit.stems | (unit.about or frozenset())))
    return shared >= MIN_SHARED and shared >= MIN_SHARE * len(claim_stems)


def _same_thing(claim: Specific, evidence: Specific, unit: EvidenceUnit) -> bool:
    """The specifics check's test: the evidence value's context (a cell's row and column)
    says at least half of what the claim says its value is about."""
    context = roots(claim.context)
    shared = shared_roots(
        context, roots(unit.about if unit.about is not None else evidence.context)
    )
    return len(shared) >= 1 and len(shared) >= MIN_SHARED_SHARE * len(context)


def _predicate_of(text: str, value: Specific) -> Clause | None:
    """The clause of the verb ``value`` is said under ("... repairs over £10,000" under
    "choose"), or None where no verb governs it (a table cell)."""
    doc = parse_many([text])[0]
    token = next((t for t in doc if t.idx <= value.start < t.idx + len(t.text)), None)
    while token is not None and (
        token.pos_ not in ("VERB", "AUX") or token.lower_ in _PHRASE_WORDS
    ):
        token = None if token.head.i == token.i else token.head
    return read_clause(token) if token is not None else None


def _same_act(claim: str, bound: Specific, unit: EvidenceUnit, value: Specific) -> bool:
    """Whether the two values are said under the same predicate: "under £10,000 you may use
    your own builder" is another act than "we choose the builder for repairs over £10,000"."""
    mine, theirs = _predicate_of(claim, bound), _predicate_of(unit.text, value)
    return mine is None or theirs is None or same_predicate(mine, theirs)


def _bound_clash(claim: str, units: Sequence[EvidenceUnit]) -> SlotClash | None:
    for bound in bounds_of(claim):
        rivals: list[tuple[str | None, str, EvidenceUnit]] = []
        for unit in units:
            sides = {(b.value.start, b.value.end): b for b in bounds_of(unit.text)}
            for value in extract_many([unit.text])[0]:
                if (
                    value.is_value
                    and _equal(bound.value, value)
                    and _same_thing(bound.value, value, unit)
                    and _same_act(claim, bound.value, unit, value)
                ):
                    found = sides.get((value.start, value.end))
                    rivals.append(
                        (found.side, found.phrase, unit) if found else (None, value.surface, unit)
                    )
        if rivals and all(side not in (None, bound.side) for side, _, _ in rivals):
            _, words, unit = rivals[0]
            return SlotClash("direction", bound.phrase, words, unit.text, unit.chunk_id)
    return None


@lru_cache(maxsize=8192)
def _events(text: str) -> tuple[tuple[str, str, frozenset[str]], ...]:
    """Each "before"/"after" of ``text`` with its words and the content stems of the event."""
    doc = parse_many([text])[0]
    found = []
    for token in doc:
        word = token.lower_
        if word not in _TEMPORAL or token.dep_ not in ("prep", "mark"):
            continue
        event = [t for t in token.subtree if t is not token]
        # An event is named by words: "after 08:40" is a time, a value's business.
        stems = frozenset(
            s
            for s in content_stems(" ".join(t.text for t in event))
            if s.isalpha() and len(s) >= _EVENT_WORD_LETTERS
        )
        if stems:
            found.append((word, f"{word} {' '.join(t.text for t in event)}", stems))
    return tuple(found)


def _event_clash(units: Sequence[EvidenceUnit], claim: str) -> SlotClash | None:
    for word, claim_words, stems in _events(claim):
        same = other = None
        for unit in units:
            for their_word, their_words, their_stems in _events(unit.text):
                if not stems & their_stems:
                    continue
                if their_word == word:
                    same = their_words
                elif other is None:
                    other = (their_words, unit)
        if other is not None and same is None:
            return SlotClash("direction", claim_words, other[0], other[1].text, other[1].chunk_id)
    return None


def check_direction(claim: str, units: Sequence[EvidenceUnit]) -> SlotClash | None:
    """The first bound or event of ``claim`` that the evidence about the same thing states from
    the other side, or None."""
    claim_stems = frozenset(content_stems(claim))
    near = [u for u in units if _about_same(claim_stems, u)]
    if not near:
        return None
    return _bound_clash(claim, near) or _event_clash(near, claim)


def direction_analysis(batch: Batch) -> list[SlotClash | None]:
    """The direction reading of every claim of ``batch`` against its evidence."""
    unit_sets = batch.analysis(evidence_unit_analysis)
    return [
        check_direction(claim.text, units)
        for claim, units in zip(batch.claims, unit_sets, strict=True)
    ]
