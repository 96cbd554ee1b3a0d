import pytest

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.verification import VerifierChain
from audit_pipeline.verification.configured import local_chain


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    """One model load per test session (the underlying model is also cached per process)."""
    return SentenceTransformerEmbedder()


@pytest.fixture(scope="session")
def local_verifier(embedder: SentenceTransformerEmbedder) -> VerifierChain:
    """The shipped local chain (the fitted ``local_model.json``), weighing each answer's claims
    together as the audit does."""
    return local_chain(embedder)


@pytest.fixture(scope="session")
def claim_reader(embedder: SentenceTransformerEmbedder) -> VerifierChain:
    """The same chain reading each claim on its own (the learned model's ``answer_level``
    off), as the pair-set benchmarks read single claims."""
    return local_chain(embedder, answer_level=False)
