"""BM25-only fallback when query embedding fails: a real LanceDB index of the sample vault and the
real model, wrapped so that it raises on demand (LanceDB itself is never replaced)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from audit_pipeline.claims.claim import make_claim
from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.evidence.claim_evidence import gather_evidence
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.records.claims import AnsweredTurn, AuditClaim
from audit_pipeline.reliability import BreakerSettings, BreakerState, CircuitBreaker
from audit_pipeline.vault.chunking import chunk_documents
from audit_pipeline.vault.documents import scan_vault
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline.warehouse.verdict_tables import load_evidence, write_evidence
from audit_pipeline_tests.helpers import SAMPLE_VAULT
from audit_pipeline_tests.reliability.clock import FakeClock

UNIQUE_CONTROL = "TH-CR-09"  # appears exactly once in the sample vault
QUERY = "How often are encryption keys rotated?"


class EmbeddingServiceDown(ConnectionError):
    pass


class FlakyEmbedder:
    """The real embedder; raises while ``down`` is set, and counts every call it receives."""

    def __init__(self, inner: SentenceTransformerEmbedder):
        self.inner = inner
        self.down = False
        self.calls = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.down:
            raise EmbeddingServiceDown("embedding service unreachable")
        return self.inner.embed(texts)


@pytest.fixture(scope="module")
def index_path(
    tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder
) -> Path:
    path = tmp_path_factory.mktemp("lance")
    VaultIndex(path, embedder).sync(chunk_documents(scan_vault(SAMPLE_VAULT).documents))
    return path


@pytest.fixture
def flaky(embedder: SentenceTransformerEmbedder) -> FlakyEmbedder:
    return FlakyEmbedder(embedder)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def breaker(clock: FakeClock) -> CircuitBreaker:
    settings = BreakerSettings(failure_threshold=3, reset_timeout_s=30, success_threshold=2)
    return CircuitBreaker(settings, clock=clock)


@pytest.fixture
def retriever(index_path: Path, flaky: FlakyEmbedder, breaker: CircuitBreaker) -> HybridRetriever:
    return HybridRetriever(VaultIndex(index_path, flaky), breaker=breaker, fallback_penalty=0.2)


def _ids(hits: Sequence) -> list[str]:
    return [h.chunk_id for h in hits]


def _fts_ranking(index_path: Path, k: int) -> list[tuple[str, float]]:
    """The independent oracle: LanceDB's full-text search of ``QUERY``, queried directly."""
    table = VaultIndex(index_path, None).table()  # type: ignore[arg-type]
    rows = table.search(QUERY, query_type="fts").select(["chunk_id"]).limit(k).to_list()
    return [(row["chunk_id"], float(row["_score"])) for row in rows]


@pytest.mark.slow
def test_failed_embedding_falls_back_to_bm25_with_lowered_scores(
    retriever: HybridRetriever, flaky: FlakyEmbedder, index_path: Path
) -> None:
    normal = retriever.search(QUERY, k=5)
    assert normal and not any(h.fallback_mode for h in normal)
    assert any(h.vector_score is not None for h in normal)

    flaky.down = True
    degraded = retriever.search(QUERY, k=5)
    assert degraded and all(h.fallback_mode for h in degraded)
    assert all(h.vector_score is None for h in degraded)
    assert all(h.bm25_score is not None for h in degraded)  # no identifiers: BM25 alone
    assert degraded[0].document == "encryption-standard.md"

    # LanceDB's own full-text ranking, fused alone (1 / (60 + rank)), then lowered by 20 %.
    assert [(h.chunk_id, h.bm25_score) for h in degraded] == _fts_ranking(index_path, 5)
    assert [h.fused_score for h in degraded] == pytest.approx(
        [0.8 / (60 + rank) for rank in range(1, 6)]
    )
    assert max(h.fused_score for h in degraded) < max(h.fused_score for h in normal)


def test_breaker_opens_then_stops_calling_the_embedder_then_recovers(
    retriever: HybridRetriever,
    flaky: FlakyEmbedder,
    breaker: CircuitBreaker,
    clock: FakeClock,
) -> None:
    hybrid = retriever.search(QUERY, k=5)
    flaky.down = True
    for _ in range(3):
        assert all(h.fallback_mode for h in retriever.search(QUERY, k=5))
    assert breaker.state is BreakerState.OPEN
    calls_when_opened = flaky.calls
    assert calls_when_opened == 4

    for _ in range(5):
        assert all(h.fallback_mode for h in retriever.search(QUERY, k=5))
    assert flaky.calls == calls_when_opened  # open: the embedder is not called at all

    flaky.down = False  # the service is back, but the breaker has not looked yet
    assert all(h.fallback_mode for h in retriever.search(QUERY, k=5))
    assert flaky.calls == calls_when_opened

    clock.advance(30)
    assert breaker.state is BreakerState.HALF_OPEN
    first_trial = retriever.search(QUERY, k=5)
    assert not any(h.fallback_mode for h in first_trial)
    assert breaker.state is BreakerState.HALF_OPEN
    second_trial = retriever.search(QUERY, k=5)
    assert breaker.state is BreakerState.CLOSED
    assert flaky.calls == calls_when_opened + 2
    assert second_trial == hybrid  # the normal hybrid results again, scores and all

    stats = retriever.stats()
    assert stats["queries"] == 12
    assert stats["embedding_requests"] == 6 and stats["embedding_failures"] == 3
    assert stats["embedding_rejections"] == 6 and stats["embedding_fallbacks"] == 9
    assert stats["fallback_mode"] is False
    assert stats["breaker_state"] == "closed"


def test_failure_in_half_open_reopens_and_keeps_falling_back(
    retriever: HybridRetriever, flaky: FlakyEmbedder, breaker: CircuitBreaker, clock: FakeClock
) -> None:
    flaky.down = True
    for _ in range(3):
        retriever.search(QUERY, k=3)
    clock.advance(30)
    assert all(h.fallback_mode for h in retriever.search(QUERY, k=3))  # the trial fails
    assert breaker.state is BreakerState.OPEN
    calls = flaky.calls
    retriever.search(QUERY, k=3)
    assert flaky.calls == calls


def test_exact_identifier_still_ranks_first_in_fallback_mode(
    retriever: HybridRetriever, flaky: FlakyEmbedder
) -> None:
    flaky.down = True
    hits = retriever.search(f"What does control {UNIQUE_CONTROL} cover?", k=5)
    assert all(h.fallback_mode and h.vector_score is None for h in hits)
    assert UNIQUE_CONTROL in hits[0].text
    assert hits[0].fused_score == max(h.fused_score for h in hits)


def test_search_many_degrades_the_whole_batch(
    retriever: HybridRetriever, flaky: FlakyEmbedder
) -> None:
    queries = ["MFA hardware keys for administrators", "GDPR data subject request deadline", QUERY]
    flaky.down = True
    batched = retriever.search_many(queries, k=3)
    assert flaky.calls == 1  # one batch, one failed embedding call
    assert all(h.fallback_mode and h.vector_score is None for hits in batched for h in hits)
    assert [_ids(hits) for hits in batched] == [_ids(retriever.search(q, k=3)) for q in queries]
    assert retriever.stats()["embedding_fallbacks"] == 6


def test_filter_by_document_holds_in_fallback_mode(
    retriever: HybridRetriever, flaky: FlakyEmbedder
) -> None:
    flaky.down = True
    hits = retriever.search("encryption keys", k=5, document="access-control-policy.md")
    assert hits and {h.document for h in hits} == {"access-control-policy.md"}


def test_warns_once_per_change_not_per_query(
    retriever: HybridRetriever, flaky: FlakyEmbedder, clock: FakeClock, caplog
) -> None:
    with caplog.at_level(logging.WARNING, logger="audit_pipeline"):
        flaky.down = True
        for _ in range(20):
            retriever.search(QUERY, k=2)
        flaky.down = False
        clock.advance(30)
        for _ in range(20):
            retriever.search(QUERY, k=2)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 5, messages
    assert "falls back to BM25 only" in messages[0]
    assert "'embeddings': closed -> open" in messages[1]
    assert "'embeddings': open -> half_open" in messages[2]
    assert "hybrid retrieval resumed" in messages[3]
    assert "'embeddings': half_open -> closed" in messages[4]


def test_concurrent_searches_share_the_breaker(
    retriever: HybridRetriever, flaky: FlakyEmbedder, breaker: CircuitBreaker
) -> None:
    flaky.down = True
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda _: retriever.search(QUERY, k=3), range(24)))
    assert all(h.fallback_mode for hits in results for h in hits)
    assert breaker.state is BreakerState.OPEN
    stats = retriever.stats()
    assert stats["queries"] == 24 == stats["embedding_fallbacks"]
    assert stats["embedding_requests"] + stats["embedding_rejections"] == 24
    assert stats["embedding_failures"] == stats["embedding_requests"] == flaky.calls
    assert 3 <= flaky.calls < 24


def test_without_a_breaker_an_embedding_failure_is_raised(
    index_path: Path, flaky: FlakyEmbedder
) -> None:
    retriever = HybridRetriever(VaultIndex(index_path, flaky))
    flaky.down = True
    with pytest.raises(EmbeddingServiceDown):
        retriever.search(QUERY, k=3)
    assert retriever.stats()["embedding_failures"] == 1
    assert retriever.stats()["embedding_fallbacks"] == 0


def test_settings_build_the_retriever(index_path: Path, flaky: FlakyEmbedder) -> None:
    settings = BreakerSettings(failure_threshold=1, fallback_penalty=0.5)
    retriever = HybridRetriever(
        VaultIndex(index_path, flaky),
        breaker=CircuitBreaker(settings),
        fallback_penalty=settings.fallback_penalty,
    )
    reference = retriever.search(QUERY, k=3)
    flaky.down = True
    hits = retriever.search(QUERY, k=3)
    assert retriever.breaker is not None and retriever.breaker.state is BreakerState.OPEN
    assert [h.chunk_id for h in hits] == [cid for cid, _ in _fts_ranking(index_path, 3)]
    assert [h.fused_score for h in hits] == pytest.approx([0.5 / (60 + r) for r in (1, 2, 3)])
    assert reference[0].fused_score > hits[0].fused_score


def test_fallback_flag_survives_evidence_round_trip(
    retriever: HybridRetriever,
    flaky: FlakyEmbedder,
    embedder: SentenceTransformerEmbedder,
    tmp_path: Path,
) -> None:
    """Evidence gathered before and during an outage, plus logged context, in one audit."""

    def claim(prompt_id: str, response: str) -> AuditClaim:
        c = make_claim(response, 0, len(response), "sentence")
        return AuditClaim(f"{prompt_id}-c", prompt_id, 0, c, "sentences")

    before = claim("p1", "Encryption keys are rotated every 90 days.")
    during = claim("p2", f"Control {UNIQUE_CONTROL} covers certificate rotation.")
    logged = claim("p3", "The bot says keys are rotated yearly.")
    turns = [
        AnsweredTurn("p1", 0, before.claim.text),
        AnsweredTurn("p2", 0, during.claim.text),
        AnsweredTurn("p3", 0, logged.claim.text, context=("Keys are rotated every year.",)),
    ]
    evidence = gather_evidence([before, logged], turns, retriever, embedder, top_k=3)
    flaky.down = True
    evidence |= gather_evidence([during], turns, retriever, embedder, top_k=3)
    assert {p.fallback_mode for p in evidence[during.claim_id]} == {True}

    warehouse = Warehouse(tmp_path / "audit.duckdb")
    warehouse.migrate()
    assert write_evidence(warehouse, "a1", evidence) == sum(map(len, evidence.values()))
    loaded = load_evidence(warehouse, "a1")
    assert loaded == evidence
    flags = {cid: {p.fallback_mode for p in passages} for cid, passages in loaded.items()}
    assert flags == {before.claim_id: {False}, during.claim_id: {True}, logged.claim_id: {False}}
    assert all(p.vector_score is None for p in loaded[during.claim_id])
    stored = warehouse.query(
        "SELECT claim_id, bool_and(fallback_mode) AS all_fb FROM evidence GROUP BY claim_id"
    )
    assert dict(zip(stored.claim_id, stored.all_fb, strict=True))[during.claim_id]
