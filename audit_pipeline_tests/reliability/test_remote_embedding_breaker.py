"""The circuit breaker around a real remote embedding call.

A provider model served by an OpenAI-compatible server on 127.0.0.1, called through litellm;
the vault indexed with it in a real LanceDB table. The server fails (HTTP 500), hangs past the
client's timeout and recovers, and retrieval goes hybrid → BM25-only → (open: the server is not
called at all) → hybrid again. Only time for the breaker's reset is faked; every call is real.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit_pipeline.embedding import LiteLLMEmbedder
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.reliability import BreakerSettings, BreakerState, CircuitBreaker
from audit_pipeline.vault.chunking import chunk_documents
from audit_pipeline.vault.documents import scan_vault
from audit_pipeline_tests.embeddings_server import EmbeddingsServer, start_embeddings_server
from audit_pipeline_tests.helpers import SAMPLE_VAULT
from audit_pipeline_tests.reliability.clock import FakeClock

pytestmark = pytest.mark.slow

KEY = "sk-breaker-test-9d8c7b6a5f4e"
QUERY = "How often are encryption keys rotated?"
TIMEOUT_S = 0.3


@pytest.fixture
def server() -> Iterator[EmbeddingsServer]:
    started = start_embeddings_server(dimension=48)
    started.hang_s = 1.5  # five times the client's timeout
    yield started
    started.server.stop()


@pytest.fixture
def index(tmp_path: Path, server: EmbeddingsServer) -> VaultIndex:
    embedder = LiteLLMEmbedder("openai/hash-embed", KEY, server.api_base, timeout_s=TIMEOUT_S)
    vault_index = VaultIndex(tmp_path / "vault.lance", embedder)
    vault_index.sync(chunk_documents(scan_vault(SAMPLE_VAULT).documents))
    return vault_index


def _fallback(hits: list) -> bool:
    assert hits
    modes = {hit.fallback_mode for hit in hits}
    assert len(modes) == 1
    return modes.pop()


def test_a_failing_then_hanging_then_recovered_service(
    index: VaultIndex, server: EmbeddingsServer, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(
        BreakerSettings(failure_threshold=2, reset_timeout_s=30, success_threshold=1),
        clock=clock,
    )
    retriever = HybridRetriever(index, breaker=breaker, fallback_penalty=0.2)
    with caplog.at_level(logging.WARNING, logger="audit_pipeline"):
        hybrid = retriever.search(QUERY, k=5)
        assert not _fallback(hybrid)

        server.mode = "error"  # the service crashes: each call fails (after the client's retries)
        before = server.count
        assert _fallback(retriever.search(QUERY, k=5))
        assert breaker.state is BreakerState.CLOSED  # one failure is not an outage
        assert _fallback(retriever.search(QUERY, k=5))
        assert breaker.state is BreakerState.OPEN
        assert server.count - before >= 2

        opened = server.count
        started = time.monotonic()
        for _ in range(5):  # open: answered at once from full-text search, nothing is sent
            assert _fallback(retriever.search(QUERY, k=5))
        assert server.count == opened
        assert time.monotonic() - started < 5

        clock.advance(30)
        server.mode = "hang"  # back up but hanging: the trial call times out
        assert breaker.state is BreakerState.HALF_OPEN
        started = time.monotonic()
        assert _fallback(retriever.search(QUERY, k=5))
        assert time.monotonic() - started < 10  # bounded by the timeout, not by the hang
        assert server.count > opened
        assert breaker.state is BreakerState.OPEN

        clock.advance(30)
        server.mode = "ok"  # recovered: the next trial closes the breaker
        recovered = retriever.search(QUERY, k=5)
        assert not _fallback(recovered)
        assert breaker.state is BreakerState.CLOSED
        assert [(h.chunk_id, h.fused_score) for h in recovered] == [
            (h.chunk_id, h.fused_score) for h in hybrid
        ]

    stats = retriever.stats()
    assert stats["breaker_state"] == "closed" and stats["embedding_rejections"] == 5
    assert stats["embedding_failures"] == 3  # two crashes and the hung trial
    messages = [record.getMessage() for record in caplog.records]
    assert any("InternalServerError" in m and "falls back to BM25 only" in m for m in messages)
    assert [m for m in messages if "circuit" in m] == [
        "circuit 'embeddings': closed -> open",
        "circuit 'embeddings': open -> half_open",
        "circuit 'embeddings': half_open -> open",
        "circuit 'embeddings': open -> half_open",
        "circuit 'embeddings': half_open -> closed",
    ]
    assert not any(KEY in m for m in messages)
    assert {r.headers["authorization"] for r in server.server.requests} == {f"Bearer {KEY}"}
