"""A validation engine over the real embedder, extractor and local verifier."""

from __future__ import annotations

import pytest

from audit_pipeline.claims import SentenceClaimExtractor
from audit_pipeline.validation.engine import AnswerValidator
from audit_pipeline.validation.settings import ValidationSettings
from audit_pipeline.verification import LocalVerifier

BACKUP_SOURCES = [
    "Production databases take a full snapshot every day. Database transaction logs are "
    "archived continuously, which allows point-in-time recovery to any moment in the last 7 "
    "days. Object storage holding file exports and attachments is versioned, with previous "
    "versions kept for 35 days.",
    "The recovery point objective (RPO) of the Ledger module is 1 hour and the recovery time "
    "objective (RTO) is 4 hours.",
]


@pytest.fixture(scope="session")
def verifier(embedder):  # type: ignore[no-untyped-def]
    return LocalVerifier(embedder)


@pytest.fixture(scope="session")
def validator(embedder, verifier):  # type: ignore[no-untyped-def]
    return AnswerValidator(
        embedder=embedder,
        extractor=SentenceClaimExtractor(),
        verifier=verifier,
        settings=ValidationSettings(),
    )
