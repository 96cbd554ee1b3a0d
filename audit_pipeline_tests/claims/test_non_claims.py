"""Refusals, deflections, stalling and meta-statements are not claims; rules that look alike are."""

import pytest

from audit_pipeline.claims import SentenceClaimExtractor

NOT_CLAIMS = [
    "I can't share that.",
    "I cannot share that information.",
    "I'm not able to help with that request.",
    "I’m not able to help with that request.",  # noqa: RUF001
    "Sorry, I can't help with that.",
    "Unfortunately, I am unable to disclose internal security procedures.",
    "I won't provide credentials.",
    "Please contact support.",
    "Please contact your account manager for details.",
    "You can reach our support team at the help desk.",
    "I recommend contacting your administrator.",
    "Feel free to reach out to our sales team for a quote.",
    "That's outside what I can help with.",
    "That's not something I can help with.",
    "Let me check that for you.",
    "Here is a summary of the policy:",
    "Here is a summary of the policy.",
    "As an AI, I don't have access to your account.",
    "As an AI language model, I cannot browse the internet.",
    "I'm just an AI assistant.",
    "Can you tell me which plan you are on?",
]

CLAIMS = [
    "Support is available 24/7 at support@x.com.",
    "You can reach our support team at support@example.com.",
    "Access reviews are not performed.",
    "The company cannot share customer data with third parties.",
    "We cannot share customer data with third parties.",
    "Employees must not share passwords.",
    "Customers must contact support within 30 days to request a refund.",
    "Contact support within 30 days to request a refund.",
    "Customers can contact support through the in-app chat.",
    "Please contact support to enable SSO.",
    "It is beyond the warranty period.",
]


def texts(response: str) -> list[str]:
    return [claim.text for claim in SentenceClaimExtractor().extract(response)]


@pytest.mark.parametrize("sentence", NOT_CLAIMS)
def test_refusals_deflections_and_meta_statements_are_not_claims(sentence: str) -> None:
    assert texts(sentence) == []


@pytest.mark.parametrize("sentence", CLAIMS)
def test_factual_sentences_that_look_alike_stay_claims(sentence: str) -> None:
    assert texts(sentence) == [sentence]


def test_a_refusal_next_to_a_fact_keeps_the_fact() -> None:
    response = "I can't share that. Please contact support. The office opens at 9 am."
    assert texts(response) == ["The office opens at 9 am."]


def test_a_refusal_joined_to_a_fact_is_not_dropped_whole() -> None:
    assert texts("I can't share that, but the office opens at 9.") != []
