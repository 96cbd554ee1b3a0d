"""The length of one claim is bounded (issue 33, item 1): a sentence over the limit is cut at
spaces into fragments with exact spans, the cut is counted, and the per-answer cap then bounds
an answer of one 100,000-character sentence as it bounds one of many sentences."""

from __future__ import annotations

from audit_pipeline.claims.audit_claims import extract_claims
from audit_pipeline.claims.claim_length import (
    MAX_CLAIM_CHARS,
    bound_claims,
    cut_note,
    fragment_spans,
)
from audit_pipeline.claims.extractor import SentenceClaimExtractor
from audit_pipeline.records.claims import AnsweredTurn

RUN_ON = (
    "B"
    + " and ".join(
        f"backups of Region {n} in Frankfurt are kept for {n % 90 + 1} days" for n in range(2000)
    )[1:99_999]
    + "."
)


def test_a_huge_sentence_becomes_bounded_fragments_with_exact_spans() -> None:
    claims = SentenceClaimExtractor().extract(RUN_ON)
    assert max(len(claim.text) for claim in claims) > 90_000  # the extractor alone: one claim
    bounded = bound_claims(RUN_ON, claims)
    assert bounded.cut == 1
    assert len(bounded.claims) >= len(RUN_ON) // MAX_CLAIM_CHARS
    for claim in bounded.claims:
        assert 0 < len(claim.text) <= MAX_CLAIM_CHARS
        assert RUN_ON[claim.start : claim.end] == claim.text
        assert claim.kind == "fragment"
        assert not claim.text.startswith(" ") and not claim.text.endswith(" ")
    # Cut at spaces: every fragment but the last ends at a word's end.
    assert all(RUN_ON[claim.end] == " " for claim in bounded.claims[:-1])
    assert "1 sentence(s) longer than 600 characters were cut" in cut_note(bounded.cut)


def test_short_claims_are_left_alone() -> None:
    answer = "Backups are kept for 35 days. Keys rotate every 12 months."
    claims = SentenceClaimExtractor().extract(answer)
    assert bound_claims(answer, claims).claims == claims
    assert bound_claims(answer, claims).cut == 0


def test_a_word_longer_than_the_limit_is_cut_at_the_limit() -> None:
    text = "x" * 1500
    assert fragment_spans(text, 0, len(text)) == [(0, 600), (600, 1200), (1200, 1500)]


def test_the_audit_cap_then_bounds_the_answer() -> None:
    extraction = extract_claims(
        [AnsweredTurn("LONG-1", 0, RUN_ON)], SentenceClaimExtractor(), max_per_answer=50
    )
    assert len(extraction.claims) == 50
    assert extraction.cut == [("LONG-1", 0, 1)]
    assert extraction.capped[0].found > 150
