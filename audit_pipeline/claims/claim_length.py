"""The length of one claim is bounded: an over-long sentence is cut into fragments.

A claim is a sentence, and the checks compare every value in it with every value in its
evidence, so the cost of one claim grows with its length squared: one 10,000-character
"sentence" (a run-on answer, a pasted table without full stops) took 26 s to verify and one of
100,000 characters over two minutes, far past any time budget, while the number of claims per
answer was already capped. So a claim longer than ``MAX_CLAIM_CHARS`` is cut at the last space
before the limit into fragments (kind ``fragment``, each ``response[start:end] == text``), and
the cut is reported: the per-answer cap then bounds the work of an answer of any shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from audit_pipeline.claims.claim import make_claim
from audit_pipeline.records.claims import Claim
from audit_pipeline.text.sentences import Span, trim

# Five times the longest sentence of the recorded answers (197); ~100 words.
MAX_CLAIM_CHARS = 600
FRAGMENT = "fragment"


@dataclass(frozen=True)
class BoundedClaims:
    claims: list[Claim]
    cut: int  # claims that were longer than the limit and were cut into fragments


def fragment_spans(text: str, start: int, end: int, limit: int = MAX_CLAIM_CHARS) -> list[Span]:
    """``text[start:end]`` in pieces of at most ``limit`` characters, cut at whitespace where
    there is any in the second half of a piece (else at the limit)."""
    spans: list[Span] = []
    while end - start > limit:
        cut = text.rfind(" ", start + limit // 2, start + limit + 1)
        cut = cut if cut > start else start + limit
        piece = trim(text, start, cut)
        if piece[0] < piece[1]:
            spans.append(piece)
        start = trim(text, cut, end)[0]
    piece = trim(text, start, end)
    if piece[0] < piece[1]:
        spans.append(piece)
    return spans


def bound_claims(
    response: str, claims: Sequence[Claim], limit: int = MAX_CLAIM_CHARS
) -> BoundedClaims:
    """``claims`` with every claim longer than ``limit`` replaced by its fragments."""
    bounded: list[Claim] = []
    cut = 0
    for claim in claims:
        if len(claim.text) <= limit:
            bounded.append(claim)
            continue
        cut += 1
        bounded.extend(
            make_claim(response, start, end, FRAGMENT)
            for start, end in fragment_spans(response, claim.start, claim.end, limit)
        )
    return BoundedClaims(bounded, cut)


def cut_note(cut: int, limit: int = MAX_CLAIM_CHARS) -> str:
    """What a reader of the result is told about the cut."""
    return (
        f"{cut} sentence(s) longer than {limit} characters were cut into fragments of at most "
        f"{limit} characters, each checked as a claim"
    )
