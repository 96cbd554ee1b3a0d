"""Definitional questions and claims, checked against the terminology source first.

"What is an RPO?" and "The RPO is the maximum period of data loss ..." are about what a term
*means*, which a vault passage that merely uses the term cannot settle. For such a claim the
glossary definition replaces the retrieved evidence (and is what a supporting verdict cites);
an unknown term makes the claim ``unsupported`` (``terminology_not_found``), a remote lookup
that timed out makes it ``unverifiable`` ("unverified terminology"), and a label shared by
several concepts is flagged ambiguous in the justification.

Which sentences count as definitions is deliberately narrow: "X means / stands for / refers to
/ is defined as ...", or "X is a/an/the ..." with a short subject. An ordinary sentence of the
second form ("Backups are the ...", "Tallyhawk is a ...") about a term the glossary lacks is
only treated as a definition when the question asked for that term or the term is an acronym,
so a glossary does not turn every description in an answer into a terminology failure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from audit_pipeline.records.claims import Claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.terminology.glossary import Concept, normalize_term
from audit_pipeline.terminology.lookup import TermLookup, TermSource

GLOSSARY_SOURCE = "glossary"
NOT_FOUND = "terminology_not_found"
UNVERIFIED = "unverified terminology"
MISMATCH = "definition_mismatch"
MAX_TERM_WORDS = 5

_QUESTION = re.compile(
    r"^\s*(?:what|who)\s+(?:is|are|'s)\s+(?P<a>.+?)\s*\??\s*$"
    r"|^\s*what\s+(?:does|do)\s+(?P<b>.+?)\s+(?:mean|stand\s+for)\s*\??\s*$"
    r"|^\s*(?:define|definition\s+of|meaning\s+of)\s+(?P<c>.+?)\s*[.?]?\s*$",
    re.IGNORECASE,
)
_STRONG = re.compile(
    r"^\s*(?P<term>[^,;:]{1,80}?)\s+(?:means|stands\s+for|refers\s+to|is\s+defined\s+as"
    r"|is\s+short\s+for|is\s+an?\s+abbreviation\s+(?:of|for))\b",
    re.IGNORECASE,
)
_COPULA = re.compile(r"^\s*(?P<term>[^,;:]{1,80}?)\s+(?:is|are)\s+(?:an?|the)\s+\S", re.IGNORECASE)
_PRONOUN = re.compile(r"^\s*(?:it|this|that)\s+(?:is|means|stands|refers)\b", re.IGNORECASE)
_NOT_A_TERM = frozenset(
    [
        "i",
        "we",
        "you",
        "he",
        "she",
        "it",
        "they",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "our",
        "your",
        "their",
        "my",
        "its",
        "his",
        "her",
        "which",
        "who",
        "what",
        "all",
        "each",
        "every",
        "some",
        "any",
        "no",
        "one",
    ]
)
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9&/-]*[A-Z0-9]\b")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "for",
        "and",
        "or",
        "by",
        "with",
        "from",
        "at",
        "as",
        "is",
        "are",
        "be",
        "been",
        "was",
        "were",
        "that",
        "which",
        "who",
        "it",
        "its",
        "this",
        "these",
        "those",
        "than",
        "then",
        "so",
        "such",
        "any",
        "all",
        "each",
        "can",
        "may",
        "must",
        "not",
        "no",
    ]
)
# Share of a definition's content words that must appear in the glossary definition: below
# it, the claim gives the term another meaning, whatever a lenient verifier says.
MIN_DEFINITION_OVERLAP = 0.4


def _term(candidate: str | None) -> str | None:
    """``candidate`` if it can be a term: a few words, not a pronoun or possessive phrase."""
    if not candidate:
        return None
    words = candidate.split()
    first = words[0].casefold().strip("\"'(\u201c\u2018")
    if not 0 < len(words) <= MAX_TERM_WORDS or first in _NOT_A_TERM or first.endswith("'s"):
        return None
    return candidate.strip()


def question_term(question: str) -> str | None:
    """The term a definitional question asks about ("What is an RPO?" -> "an RPO")."""
    match = _QUESTION.match(question.strip())
    if match is None:
        return None
    term = _term(next(g for g in match.groups() if g))
    if term is None or term.split()[0].casefold() in ("the", "your", "our"):
        return None
    return re.sub(r"^(?:an?)\s+", "", term, flags=re.IGNORECASE)


@dataclass(frozen=True)
class TermCheck:
    """The lookup behind one definitional claim."""

    claim_index: int
    lookup: TermLookup


class TerminologyChecker:
    """Finds definitional claims and applies the source's definitions to them."""

    def __init__(self, source: TermSource) -> None:
        self.source = source

    def claim_term(self, text: str, asked: str | None) -> tuple[str, bool] | None:
        """The term ``text`` defines, and whether the form is strong ("means", or the term
        the question asked about, or "It is ..." answering it)."""
        if asked is not None and _PRONOUN.match(text):
            return asked, True
        for pattern, strong in ((_STRONG, True), (_COPULA, False)):
            match = pattern.match(text)
            term = _term(match.group("term")) if match else None
            if term is None:
                continue
            if asked is not None and normalize_term(term) == normalize_term(asked):
                return asked, True
            return term, strong
        return None

    def plan(self, question: str | None, claims: Sequence[Claim]) -> list[TermCheck]:
        """Look up every definitional claim's term (once per distinct term)."""
        asked = question_term(question) if question else None
        lookups: dict[str, TermLookup] = {}
        checks = []
        for index, claim in enumerate(claims):
            found = self.claim_term(claim.text, asked)
            if found is None:
                continue
            term, strong = found
            key = normalize_term(term)
            if key not in lookups:
                lookups[key] = self.source.lookup(term)
            lookup = lookups[key]
            weak_miss = lookup.status == "miss" and not strong and not _ACRONYM.search(term)
            if weak_miss:
                continue  # an ordinary description, not a definition of an unknown term
            checks.append(TermCheck(index, lookup))
        return checks


def _stems(text: str) -> set[str]:
    return {w[:5] for w in _WORD.findall(text.casefold()) if w not in _STOP}


def definition_overlap(claim: str, concepts: Sequence[Concept]) -> float:
    """The best share, over ``concepts``, of the content words the claim defines the term with
    (the words after "is a", "means", ...) that the concept's definition also uses."""
    predicate = claim
    for pattern in (_STRONG, _COPULA):
        if match := pattern.match(claim):
            predicate = claim[match.end("term") :]
            break
    else:
        if match := _PRONOUN.match(claim):
            predicate = claim[match.end() :]
    best = 0.0
    for concept in concepts:
        said = _stems(predicate) - _stems(" ".join(concept.labels))
        if not said:
            return 1.0
        best = max(best, len(said & _stems(concept.passage_text())) / len(said))
    return best


def definition_passages(concepts: Sequence[Concept]) -> list[EvidencePassage]:
    return [
        EvidencePassage(
            chunk_id=f"{GLOSSARY_SOURCE}:{concept.concept_id}",
            text=concept.passage_text(),
            document=concept.source,
            section=concept.term,
            vector_score=None,
            bm25_score=None,
            fused_score=1.0,
            source=GLOSSARY_SOURCE,
        )
        for concept in concepts
    ]


def with_definitions(
    evidence: Sequence[list[EvidencePassage]], checks: Sequence[TermCheck]
) -> list[list[EvidencePassage]]:
    """Evidence per claim, a found definition replacing the retrieved passages."""
    result = [list(passages) for passages in evidence]
    for check in checks:
        if check.lookup.concepts:
            result[check.claim_index] = definition_passages(check.lookup.concepts)
    return result
