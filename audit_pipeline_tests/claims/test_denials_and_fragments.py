"""What is a claim (issue 31, item 6): a denial of the thing asked about is one, a refusal about
information or ability is not; a clause split off a sentence keeps its subject and verb; a bare
number says nothing checkable."""

from __future__ import annotations

import pytest

from audit_pipeline.claims.extractor import SentenceClaimExtractor

EXTRACT = SentenceClaimExtractor()


@pytest.mark.parametrize(
    "answer",
    [
        "No, I do not have a current SOC 2 Type II report.",
        "I don't have a dedicated security team.",
        "We do not have an office in Frankfurt.",
    ],
)
def test_a_denial_of_the_thing_asked_about_is_a_claim(answer: str) -> None:
    assert [c.text for c in EXTRACT.extract(answer)] == [answer]


@pytest.mark.parametrize(
    "answer",
    [
        "I do not have that information.",
        "I don't have access to your account details.",
        "I'm sorry, but I don't have any details on that.",
        "I cannot find that in the documents.",
    ],
)
def test_a_refusal_about_information_or_ability_is_not(answer: str) -> None:
    assert EXTRACT.extract(answer) == []


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        (
            "Customer data is stored in the Frankfurt data centre; only in the EU region.",
            ["Customer data is stored in the Frankfurt data centre; only in the EU region."],
        ),
        (
            "Keys are rotated every year and backups are kept for 35 days; "
            "logs are deleted after 13 months.",
            [
                "Keys are rotated every year and backups are kept for 35 days",
                "logs are deleted after 13 months.",
            ],
        ),
    ],
)
def test_a_clause_without_a_verb_stays_with_its_sentence(answer: str, claims: list[str]) -> None:
    found = EXTRACT.extract(answer)
    assert [c.text for c in found] == claims
    assert all(answer[c.start : c.end] == c.text for c in found)


def test_a_bare_number_is_no_claim_but_a_value_with_its_unit_is() -> None:
    assert EXTRACT.extract("3.") == []
    assert [c.text for c in EXTRACT.extract("Retention: 10 days.")] == ["Retention: 10 days."]
