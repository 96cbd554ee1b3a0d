import pytest

from audit_pipeline.embedding import SentenceTransformerEmbedder


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    """One model load per test session (the underlying model is also cached per process)."""
    return SentenceTransformerEmbedder()
