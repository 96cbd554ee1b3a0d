"""Condition and scope: a claim that says in general what the evidence says of some cases.

"Money kept in the home is covered up to £500 however it is lost" repeats the evidence's words
and its value; what it drops is the evidence's "only if it is stolen after a break-in". "Every
delivery is put away within 15 minutes" is "Chilled and frozen deliveries are put away within
15 minutes" without its first words. Two readings of the evidence clause about the same act
(``structure.matches``: same predicate, the act's words in the passage):

- **condition**: the claim says it holds without condition (``words/universal_phrases.txt``:
  "at any time", "however", "whatever the reason", "never") where the evidence restricts the act
  (``words/restricting_phrases.txt``: "only if", "unless", "provided", "except") and the claim
  repeats no such restriction;
- **scope**: the claim quantifies a noun ("every delivery", "any customer", "all records") that
  every evidence clause about the act narrows with words the claim does not say ("chilled and
  frozen deliveries", "Enterprise customers", "records of a customer complaint"). One evidence
  clause that says the noun without narrowing it clears the claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from audit_pipeline.specifics.language import parse_many
from audit_pipeline.specifics.measures import PERIOD_NOUNS
from audit_pipeline.text import wordlists
from audit_pipeline.text.tokens import content_stems, stem
from audit_pipeline.verification.batch import Batch
from audit_pipeline.verification.evidence_units import EvidenceUnit, evidence_unit_analysis
from audit_pipeline.verification.slot_clash import SlotClash
from audit_pipeline.verification.structure import frames_of, matches
from audit_pipeline.verification.tables import table_clash

if TYPE_CHECKING:
    from spacy.tokens import Token

_UNIVERSAL = wordlists.sequence("verification", "universal_phrases")
_RESTRICTING = wordlists.sequence("verification", "restricting_phrases")
_QUANTIFIERS = frozenset({"every", "all", "each", "any"})
_EVIDENCE_QUANTIFIERS = _QUANTIFIERS | {"no"}
# Modifiers that narrow a noun to some of its kind ("chilled deliveries", "Team plans").
_NARROWING = frozenset({"amod", "compound", "nmod", "nummod", "poss"})
# Phrases after a noun that narrow it when they say nothing the claim says ("records of a
# customer complaint"); one that shares a word with the claim is read as restating it.
_PHRASAL = frozenset({"prep", "acl", "relcl"})


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9']+", text.lower()))


def _phrase_in(text: str, phrases: Sequence[str]) -> str | None:
    padded = f" {_words(text)} "
    return next((p for p in phrases if f" {p} " in padded), None)


def _condition_clash(claim: str, units: Sequence[EvidenceUnit]) -> SlotClash | None:
    marker = _phrase_in(claim, _UNIVERSAL)
    # "for as long as" is no restriction of the claim's own.
    if marker is None or _phrase_in(_words(claim).replace(marker, " "), _RESTRICTING):
        return None
    for frame in frames_of(claim):
        for _, unit in matches(frame, units):
            restriction = _phrase_in(unit.text, _RESTRICTING)
            if restriction is not None:
                return SlotClash("condition", marker, restriction, unit.text, unit.chunk_id)
    return None


def _words_under(token: Token) -> frozenset[str]:
    return frozenset(content_stems(" ".join(t.text for t in token.subtree)))


def _narrowing(noun: Token, said: frozenset[str]) -> frozenset[str]:
    """The words that narrow ``noun`` and that the claim (``said``) does not say."""
    extra: set[str] = set()
    for child in noun.children:
        words = _words_under(child)
        if child.dep_ in _NARROWING:
            extra |= words - said
        elif child.dep_ in _PHRASAL and words and not words & said:
            extra |= words
    return frozenset(extra)


def _is_quantified(token: Token, quantifiers: frozenset[str]) -> bool:
    return any(c.dep_ in ("det", "predet") and c.lower_ in quantifiers for c in token.children)


def _quantified(claim: str) -> list[Token]:
    """The nouns the claim quantifies ("every delivery"), but spans of time ("each week" is a
    frequency, the values' business)."""
    doc = parse_many([claim])[0]
    return [
        t
        for t in doc
        if t.pos_ in ("NOUN", "PROPN")
        and t.lemma_.lower() not in PERIOD_NOUNS
        and _is_quantified(t, _QUANTIFIERS)
    ]


def _scope_clash(claim: str, units: Sequence[EvidenceUnit]) -> SlotClash | None:
    nouns = _quantified(claim)
    if not nouns:
        return None
    said = frozenset(content_stems(claim))
    for noun in nouns:
        key = stem(noun.lemma_.lower())
        narrowed: list[tuple[str, EvidenceUnit]] = []
        general = False
        for frame in frames_of(claim):
            for other, unit in matches(frame, units):
                doc = parse_many([unit.text])[0]
                for token in doc[other.head].subtree:
                    if token.pos_ not in ("NOUN", "PROPN") or stem(token.lemma_.lower()) != key:
                        continue
                    # A noun the evidence quantifies itself ("any Blue Bell-branded products",
                    # "no obligations") is no narrower case of the claim's.
                    if not _is_quantified(token, _EVIDENCE_QUANTIFIERS) and _narrowing(token, said):
                        narrowed.append((" ".join(t.text for t in token.subtree), unit))
                    else:
                        general = True
        if narrowed and not general:
            words, unit = narrowed[0]
            quantified = " ".join(t.text for t in noun.subtree)
            return SlotClash("scope", quantified, words, unit.text, unit.chunk_id)
    return None


@dataclass(frozen=True)
class ScopeReading:
    """The condition and scope clashes of one claim (None where there is none)."""

    condition: SlotClash | None = None
    scope: SlotClash | None = None


def check_scope(
    claim: str, units: Sequence[EvidenceUnit], passages: Sequence[tuple[str, str]] = ()
) -> ScopeReading:
    """``passages`` (chunk id, text) are read for whole tables (``tables.table_clash``)."""
    if not units:
        return ScopeReading()
    parse_many([u.text for u in units])
    scope = _scope_clash(claim, units) or table_clash(claim, passages)
    return ScopeReading(_condition_clash(claim, units), scope)


def scope_analysis(batch: Batch) -> list[ScopeReading]:
    """The condition and scope readings of every claim of ``batch`` against its evidence."""
    unit_sets = batch.analysis(evidence_unit_analysis)
    return [
        check_scope(claim.text, units, [(p.chunk_id, p.text) for p in passages])
        for claim, units, passages in zip(batch.claims, unit_sets, batch.evidence, strict=True)
    ]
