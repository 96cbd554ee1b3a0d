"""Seed 003's expectations for the confidence score, on the real engine (no stand-ins)."""

from __future__ import annotations

import pytest

from audit_pipeline.validation.query_type import detect_query_type
from audit_pipeline.validation.selfrag import WEIGHTS, confidence, recommend, support_level
from audit_pipeline.validation.settings import ValidationSettings
from audit_pipeline_tests.validation.sample_sources import BACKUP_SOURCES

QUESTION = "How often are production databases backed up?"
IRRELEVANT = [
    "The cafeteria serves lunch from noon until two o'clock. Parking permits are issued by "
    "the facilities team."
]


def test_fully_supported_answer_is_confident_and_accepted(validator) -> None:
    answer = (
        "Production databases take a full snapshot every day. Transaction logs allow "
        "point-in-time recovery to any moment in the last 7 days."
    )
    result = validator.validate(QUESTION, answer, BACKUP_SOURCES).to_dict()
    assert result["issup"] == "full"
    assert result["isrel"] and result["isuse"]
    assert result["confidence"] >= 0.9
    assert result["recommendation"] == "accept"
    assert result["query_type"] == "factual"


def test_partially_supported_answer_lands_between_half_and_seven_tenths(validator) -> None:
    answer = (
        "Production databases take a full snapshot every day. Backups are copied to a tape "
        "vault in Geneva every Friday by the CFO."
    )
    result = validator.validate(QUESTION, answer, BACKUP_SOURCES).to_dict()
    assert result["issup"] == "partial"
    assert 0.5 <= result["confidence"] <= 0.7
    assert result["recommendation"] == "retry"


def test_unsupported_answer_is_below_three_tenths(validator) -> None:
    answer = (
        "Backups are written to magnetic tape in Geneva every Friday. The CFO approves each "
        "restore by fax."
    )
    result = validator.validate(QUESTION, answer, BACKUP_SOURCES).to_dict()
    assert result["issup"] == "none"
    assert result["confidence"] < 0.3
    assert result["recommendation"] == "reject"


def test_irrelevant_sources_are_below_one_half(validator) -> None:
    answer = "Production databases take a full snapshot every day."
    result = validator.validate(QUESTION, answer, IRRELEVANT).to_dict()
    assert not result["isrel"]
    assert result["confidence"] < 0.5


def test_changed_number_is_contradicted_with_provenance(validator) -> None:
    answer = "Point-in-time recovery is possible to any moment in the last 30 days."
    result = validator.validate(
        "How far back can a database be recovered?", answer, BACKUP_SOURCES
    ).to_dict()
    [claim] = result["claims"]
    assert claim["label"] == "contradicted"
    assert answer[claim["start"] : claim["end"]] == claim["text"]
    assert claim["provenance"][0]["document"] == "source-1"
    assert result["recommendation"] == "reject"


def test_small_talk_is_conversational_and_weighted_for_usefulness(validator) -> None:
    result = validator.validate(
        "Hi, thanks for your help!", "You're welcome! Happy to help.", BACKUP_SOURCES
    ).to_dict()
    assert result["query_type"] == "conversational"
    assert result["claims"] == []
    assert result["recommendation"] == "accept"


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Hello!", "conversational"),
        ("thanks a lot", "conversational"),
        ("What do you think about our policy?", "conversational"),
        ("How long are backups kept?", "factual"),
        ("Hi, what is the RPO of the Ledger module?", "factual"),
        ("List the approved encryption algorithms", "factual"),
    ],
)
def test_query_type_detection(question: str, kind: str) -> None:
    assert detect_query_type(question) == kind


def test_weights_are_the_seeds() -> None:
    assert WEIGHTS["factual"] == (0.3, 0.4, 0.3)
    assert WEIGHTS["conversational"] == (0.2, 0.3, 0.5)
    assert confidence("factual", 1.0, 1.0, 1.0) == 1.0
    assert confidence("conversational", 0.0, 0.0, 1.0) == 0.5


def test_gate_and_support_levels() -> None:
    settings = ValidationSettings(accept_confidence=0.7, reject_confidence=0.4)
    assert recommend(0.75, False, settings) == "accept"
    assert recommend(0.75, True, settings) == "retry"
    assert recommend(0.5, False, settings) == "retry"
    assert recommend(0.39, False, settings) == "reject"
    assert support_level(["supported", "weakly_supported"]) == "full"
    assert support_level(["supported", "contradicted"]) == "partial"
    assert support_level(["unverifiable"]) == "none"


def test_thresholds_must_be_ordered() -> None:
    with pytest.raises(ValueError, match="reject_confidence"):
        ValidationSettings(accept_confidence=0.3, reject_confidence=0.6)


def test_a_passage_that_contradicts_the_claim_is_never_said_to_support_it(validator) -> None:
    """``provenance[].supports`` is true only for a claim the passage backs; the passage a
    contradicted claim was judged against is flagged ``contradicts`` instead."""
    answer = "Production databases take a full snapshot every week."
    result = validator.validate(QUESTION, answer, BACKUP_SOURCES).to_dict()
    (claim,) = result["claims"]
    assert claim["label"] == "contradicted", claim["justification"]
    assert not any(passage["supports"] for passage in claim["provenance"])
    assert any(passage["contradicts"] for passage in claim["provenance"])

    backed = validator.validate(QUESTION, "Production databases take a full snapshot every day.",
                                BACKUP_SOURCES).to_dict()  # fmt: skip
    (claim,) = backed["claims"]
    assert claim["label"] == "supported"
    assert any(p["supports"] for p in claim["provenance"])
    assert not any(p["contradicts"] for p in claim["provenance"])
