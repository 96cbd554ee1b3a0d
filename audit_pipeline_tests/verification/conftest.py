import pytest

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.verification import LocalVerifier


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    """One model load per test session (the underlying model is also cached per process)."""
    return SentenceTransformerEmbedder()


@pytest.fixture(scope="session")
def local_verifier(embedder: SentenceTransformerEmbedder) -> LocalVerifier:
    """The shipped local verifier (the fitted ``local_model.json``)."""
    return LocalVerifier(embedder)
