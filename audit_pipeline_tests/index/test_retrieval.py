"""Hybrid retrieval over the sample vault, with the real model and a real LanceDB index."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.index.hits import SearchHit
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever, reciprocal_rank_fusion
from audit_pipeline.vault.chunking import chunk_documents
from audit_pipeline.vault.documents import scan_vault
from audit_pipeline_tests.helpers import SAMPLE_VAULT

UNIQUE_CONTROL = "TH-CR-09"  # appears exactly once in the sample vault


@pytest.fixture(scope="module")
def retriever(
    tmp_path_factory: pytest.TempPathFactory,
    embedder: SentenceTransformerEmbedder,
    sample_index_dir: Path,
) -> HybridRetriever:
    path = tmp_path_factory.mktemp("lance") / "vault.lance"
    shutil.copytree(sample_index_dir, path)
    index = VaultIndex(path, embedder)
    assert index.sync(chunk_documents(scan_vault(SAMPLE_VAULT).documents)).embedded == 0
    return HybridRetriever(index)


def test_rrf_rewards_agreement_between_rankings() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "a"]], k=60)
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["a"] == fused["b"]
    assert fused["c"] == pytest.approx(1 / 63)
    assert max(fused, key=fused.get) in {"a", "b"} and fused["c"] < fused["a"]


def test_exact_identifier_ranks_first_in_hybrid_but_not_in_vector_search(
    retriever: HybridRetriever,
) -> None:
    owner = [p for p in SAMPLE_VAULT.glob("*.md") if UNIQUE_CONTROL in p.read_text()]
    assert len(owner) == 1 and owner[0].read_text().count(UNIQUE_CONTROL) == 1

    query = f"What does control {UNIQUE_CONTROL} cover?"
    vector_only = retriever.vector_search(query, k=5)
    assert UNIQUE_CONTROL not in vector_only[0].text

    hybrid = retriever.search(query, k=5)
    best = hybrid[0]
    assert UNIQUE_CONTROL in best.text
    assert best.document == owner[0].name
    assert best.bm25_score is not None and best.bm25_score > 0
    assert best.fused_score == max(hit.fused_score for hit in hybrid)


def test_hits_carry_scores_and_exact_offsets(retriever: HybridRetriever) -> None:
    hits = retriever.search("How often are encryption keys rotated?", k=4)
    assert len(hits) == 4
    assert [h.fused_score for h in hits] == sorted((h.fused_score for h in hits), reverse=True)
    # Offsets point into the indexed text: the file itself, or a PDF's or HTML page's
    # converted text.
    texts = {doc.doc_id: doc.text for doc in scan_vault(SAMPLE_VAULT).documents}
    for hit in hits:
        assert texts[hit.document][hit.start : hit.end] == hit.text
        assert hit.vector_score is not None or hit.bm25_score is not None
    assert hits[0].document == "encryption-standard.md"
    assert "Rotation" in hits[0].section


def test_filter_by_document(retriever: HybridRetriever) -> None:
    hits = retriever.search("encryption keys", k=5, document="access-control-policy.md")
    assert hits and {h.document for h in hits} == {"access-control-policy.md"}
    assert retriever.search("encryption", k=3, document="no-such-file.md") == []


def test_search_many_matches_single_searches(retriever: HybridRetriever) -> None:
    queries = ["MFA hardware keys for administrators", "GDPR data subject request deadline"]
    batched = retriever.search_many(queries, k=3)
    single = [retriever.search(q, k=3) for q in queries]
    assert [[h.chunk_id for h in r] for r in batched] == [[h.chunk_id for h in r] for r in single]


def test_repeated_queries_and_shared_identifiers_are_searched_once_with_the_same_hits(
    retriever: HybridRetriever,
) -> None:
    """An audit repeats claims and identifiers; searched once, each copy gets what a search of
    its own gives, and the counters still count every query asked."""
    queries = [
        f"What does control {UNIQUE_CONTROL} cover?",
        f"Who reviews {UNIQUE_CONTROL} evidence?",
        f"What does control {UNIQUE_CONTROL} cover?",
    ]
    before = retriever.stats()["queries"]
    batched = retriever.search_many(queries, k=4)
    assert retriever.stats()["queries"] - before == 3
    single = [retriever.search(q, k=4) for q in queries]
    assert [[(h.chunk_id, h.text, h.start, h.bm25_score) for h in r] for r in batched] == [
        [(h.chunk_id, h.text, h.start, h.bm25_score) for h in r] for r in single
    ]
    # a query embedded in a batch may differ from itself embedded alone in the last float bit
    assert [h.vector_score for h in batched[1]] == pytest.approx(
        [h.vector_score for h in single[1]], abs=1e-6
    )
    assert batched[0] is not batched[2]  # copies, not one list shared by two answers
    assert all(UNIQUE_CONTROL in hits[0].text for hits in batched)


def test_a_search_from_inside_an_event_loop(retriever: HybridRetriever) -> None:
    """Servers call the retriever from a running event loop; its concurrent full-text queries
    must not try to start a second loop in that thread."""

    async def handler() -> list[SearchHit]:
        return retriever.search("How often are encryption keys rotated?", k=3)

    hits = asyncio.run(handler())
    assert [h.chunk_id for h in hits] == [
        h.chunk_id for h in retriever.search("How often are encryption keys rotated?", k=3)
    ]


def test_hybrid_hits_are_not_fallback_and_stats_count_batches(
    retriever: HybridRetriever,
) -> None:
    before = retriever.stats()
    assert "breaker_state" not in before  # no breaker: nothing to report
    results = retriever.search_many(["encryption at rest", "password length"], k=3)
    assert not any(h.fallback_mode for hits in results for h in hits)
    assert all(hits[0].vector_score is not None for hits in results)
    after = retriever.stats()
    assert after["queries"] - before["queries"] == 2
    assert after["embedding_requests"] - before["embedding_requests"] == 1
    assert after["embedding_failures"] == after["embedding_fallbacks"] == 0
    assert after["fallback_mode"] is False


def test_fallback_penalty_must_be_a_share(retriever: HybridRetriever) -> None:
    with pytest.raises(ValueError, match="fallback_penalty"):
        HybridRetriever(retriever.index, fallback_penalty=1.2)
