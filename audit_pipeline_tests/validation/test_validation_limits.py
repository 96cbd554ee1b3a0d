"""A validation obeys the audit's claims cap and stops at its deadline."""

from __future__ import annotations

import time

import pytest

from audit_pipeline.claims import SentenceClaimExtractor
from audit_pipeline.validation.engine import AnswerValidator, TimeBudgetExceeded
from audit_pipeline.validation.settings import ValidationSettings
from audit_pipeline_tests.validation.sample_sources import BACKUP_SOURCES

LONG = " ".join(f"Snapshots of shard {n} are kept for {n + 1} days." for n in range(40))


def test_an_answer_over_the_cap_checks_its_first_claims_and_says_so(embedder, verifier) -> None:  # type: ignore[no-untyped-def]
    capped = AnswerValidator(
        embedder=embedder,
        extractor=SentenceClaimExtractor(),
        verifier=verifier,
        settings=ValidationSettings(),
        max_claims=5,
    )
    result = capped.validate("How long are snapshots kept?", LONG, BACKUP_SOURCES)
    assert [c.claim.text for c in result.claims] == [
        f"Snapshots of shard {n} are kept for {n + 1} days." for n in range(5)
    ]
    assert result.notes == [
        "40 claims found, the first 5 checked (detection.max_claims_per_answer)"
    ]
    assert result.to_dict()["notes"] == result.notes


def test_a_validation_past_its_deadline_stops(validator: AnswerValidator) -> None:
    with pytest.raises(TimeBudgetExceeded, match="claim extraction"):
        validator.validate("q?", LONG, BACKUP_SOURCES, deadline=time.monotonic() - 1)
    result = validator.validate("q?", LONG, BACKUP_SOURCES, deadline=time.monotonic() + 600)
    assert len(result.claims) == 40
