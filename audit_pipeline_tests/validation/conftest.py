"""A validation engine over the real embedder, extractor and local verifier (fixtures only)."""

from __future__ import annotations

import pytest

from audit_pipeline.claims import SentenceClaimExtractor
from audit_pipeline.validation.engine import AnswerValidator
from audit_pipeline.validation.settings import ValidationSettings
from audit_pipeline.verification.configured import local_chain


@pytest.fixture(scope="session")
def verifier(embedder):  # type: ignore[no-untyped-def]
    return local_chain(embedder)


@pytest.fixture(scope="session")
def validator(embedder, verifier):  # type: ignore[no-untyped-def]
    return AnswerValidator(
        embedder=embedder,
        extractor=SentenceClaimExtractor(),
        verifier=verifier,
        settings=ValidationSettings(),
    )
