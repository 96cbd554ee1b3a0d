"""Close rewrites: the word edits that turn an evidence sentence into a false claim."""

from __future__ import annotations

import pytest

from audit_pipeline.verification.rewrites import closest_rewrite, evidence_words, rewrite_edits

SENTENCE = "Contractor accounts expire automatically after 90 days unless the manager renews them."


def _edits(claim: str, sentence: str = SENTENCE) -> list[tuple[str, str]]:
    edits = rewrite_edits(claim, sentence, evidence_words(sentence))
    assert edits is not None, "expected a close rewrite"
    return [(edit.kind, claim[edit.start : edit.end]) for edit in edits]


@pytest.mark.parametrize(
    ("claim", "kind", "span"),
    [
        (
            "Contractor accounts do not expire automatically after 90 days unless the manager "
            "renews them.",
            "negation",
            "do not",
        ),
        (
            "Contractor accounts expire automatically before 90 days unless the manager renews "
            "them.",
            "opposite",
            "before",
        ),
        (
            "Contractor accounts expire automatically after 60 days unless the manager renews "
            "them.",
            "number",
            "60",
        ),
        (
            "Contractor accounts expire automatically after 90 hours unless the manager renews "
            "them.",
            "number",
            "hours",
        ),
        (
            "Contractor accounts expire automatically after 90 days if the manager renews them.",
            "opposite",
            "if",
        ),
        (
            "Contractor accounts expire automatically after 90 days unless the manager renews "
            "them, as approved by Dana Whitfield.",
            "addition",
            "as approved by Dana Whitfield",
        ),
    ],
)
def test_a_swapped_word_is_named_and_located(claim: str, kind: str, span: str) -> None:
    edits = _edits(claim)
    assert [e for e in edits if e[0] == kind], edits
    assert any(span in located or located in span for _, located in edits)


def test_contrary_edits_contradict_and_additions_do_not() -> None:
    claim = "Contractor accounts never expire automatically after 90 days."
    edits = rewrite_edits(claim, SENTENCE, evidence_words(SENTENCE))
    assert edits and all(edit.contradicts for edit in edits)
    added = rewrite_edits(SENTENCE.rstrip(".") + " since 2019.", SENTENCE, evidence_words(SENTENCE))
    assert added and [e.kind for e in added] == ["addition"]
    assert not added[0].contradicts


def test_month_and_modal_swaps() -> None:
    review = "A management review is held twice a year, in March and September."
    assert ("month", "May") in _edits(
        "A management review is held twice a year, in May and September.", review
    )
    policy = "Workforce passwords must be at least 14 characters long."
    assert _edits("Workforce passwords may be at least 14 characters long.", policy) == [
        ("modality", "may")
    ]


@pytest.mark.parametrize(
    "claim",
    [
        SENTENCE,
        # a clause of the sentence: the dropped words carry a negation of their own
        "Backups are encrypted with separate backup keys.",
        # a synonym and a capital at the start of the claim are not edits to judge
        "Clients' accounts expire automatically after 90 days unless the manager renews them.",
    ],
)
def test_faithful_rewrites_have_no_judged_edit(claim: str) -> None:
    sentence = (
        "Backups are encrypted with separate backup keys, so that a compromised production "
        "key does not expose backups."
        if claim.startswith("Backups")
        else SENTENCE
    )
    assert rewrite_edits(claim, sentence, evidence_words(sentence)) == ()


def test_a_name_found_elsewhere_in_the_evidence_is_no_addition() -> None:
    evidence = SENTENCE + " Dana Whitfield approves renewals."
    claim = SENTENCE.rstrip(".") + " with Dana Whitfield."
    assert closest_rewrite(claim, [SENTENCE], evidence_words(evidence)) == ()


def test_unrelated_claims_are_not_rewrites() -> None:
    claim = "The data centre in Frankfurt is certified to ISO 27001 and audited yearly."
    assert rewrite_edits(claim, SENTENCE, evidence_words(SENTENCE)) is None
    assert closest_rewrite(claim, [SENTENCE], evidence_words(SENTENCE)) == ()
