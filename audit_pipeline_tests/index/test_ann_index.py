"""The ANN vector index of large vaults, on a few hundred generated chunks with ``ann_min_rows``
set low: built above the threshold, dropped below it, kept usable (with the full-text index)
through incremental syncs. Vectors come from a hash of the text (no model): these tests are
about LanceDB's index upkeep, not about embeddings."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from audit_pipeline.index.lance_index import RETRAIN_SHARE, AnnKind, AnnTuning, VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.vault.chunking import Chunk, chunk_id

DIMENSION = 64
THRESHOLD = 256


class HashEmbedder:
    """A deterministic unit vector per text: a duplicate text gets the very same vector."""

    @property
    def name(self) -> str:
        return "hash-64"

    @property
    def dimension(self) -> int:
        return DIMENSION

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            rows.append(np.random.default_rng(seed).standard_normal(DIMENSION))
        vectors = np.asarray(rows, dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _chunk(doc: int, index: int, words: str) -> Chunk:
    doc_id = f"doc-{doc:03d}.md"
    text = f"Control CTL-{doc:03d}.{index} says {words} item{doc}x{index}"
    return Chunk(
        chunk_id=chunk_id(doc_id, text),
        doc_id=doc_id,
        title=f"Document {doc}",
        section_path=(f"Document {doc}", f"Section {index}"),
        chunk_index=index,
        text=text,
        start=0,
        end=len(text),
        word_count=len(text.split()),
        doc_hash=f"h{doc}",
    )


def _chunks(count: int, words: str = "keys rotate yearly") -> list[Chunk]:
    return [_chunk(n // 10, n % 10, words) for n in range(count)]


def _exact_top(index: VaultIndex, text: str) -> str:
    vector = index.embed_queries([text])[0]
    row = (
        index.table()
        .search(vector, vector_column_name="vector")
        .metric("cosine")
        .bypass_vector_index()
        .select(["chunk_id", "_distance"])
        .limit(1)
        .to_list()[0]
    )
    return str(row["chunk_id"])


@pytest.fixture
def index(tmp_path: Path) -> VaultIndex:
    return VaultIndex(tmp_path / "vault.lance", HashEmbedder(), ann_min_rows=THRESHOLD)


def test_above_the_threshold_the_ann_index_is_built_and_finds_exact_duplicates(
    index: VaultIndex,
) -> None:
    chunks = _chunks(300)
    index.sync(chunks)
    stats = index.vector_index_stats()
    assert stats is not None
    assert (stats.index_type, stats.num_indexed_rows, stats.num_unindexed_rows) == (
        "IVF_HNSW_SQ",
        300,
        0,
    )
    retriever = HybridRetriever(index)
    for chunk in chunks[::15]:
        # The query is the chunk's own embedding text: the very vector of that chunk.
        top = retriever.vector_search(chunk.embedding_text, k=5)[0]
        assert top.chunk_id == _exact_top(index, chunk.embedding_text) == chunk.chunk_id
        assert top.vector_score == pytest.approx(1.0, abs=1e-3)
    hybrid = retriever.search(f"What does CTL-{7:03d}.{3} say?", k=3)
    assert hybrid[0].chunk_id == chunks[73].chunk_id  # the identifier phrase query still works


def test_at_or_below_the_threshold_search_stays_exact(index: VaultIndex) -> None:
    index.sync(_chunks(THRESHOLD))
    assert index.vector_index_stats() is None
    # Grown past it, the index appears; shrunk back, it is dropped again.
    index.sync(_chunks(THRESHOLD + 40))
    assert index.vector_index_stats() is not None
    index.sync(_chunks(THRESHOLD - 10))
    assert index.vector_index_stats() is None
    assert [i.name for i in index.table().list_indices()] == ["text_idx"]


@pytest.mark.parametrize("kind", ["ivf_pq", "ivf_hnsw_sq"])
def test_an_incremental_sync_keeps_both_indexes_usable(tmp_path: Path, kind: AnnKind) -> None:
    index = VaultIndex(
        tmp_path / "vault.lance", HashEmbedder(), ann_min_rows=THRESHOLD, ann=AnnTuning(kind)
    )
    chunks = _chunks(300)
    index.sync(chunks)
    # Edit 20 chunks (a new word each), delete 10, add 10 of a new document.
    edited = [_chunk(n // 10, n % 10, "keys rotate every sixmonths") for n in range(20)]
    added = [_chunk(99, n, "backups encrypted offsite") for n in range(10)]
    kept = edited + chunks[20:290] + added
    report = index.sync(kept)
    assert (report.embedded, report.deleted) == (30, 30)

    stats = index.vector_index_stats()
    assert stats is not None and stats.index_type == AnnTuning(kind).index_type
    # 30 new rows of 300 (not more than RETRAIN_SHARE): outside the ANN index, searched
    # exactly beside it.
    assert stats.num_unindexed_rows == 30 == RETRAIN_SHARE * 300
    assert index.count() == len(kept)

    retriever = HybridRetriever(index)
    for chunk in (*edited[:5], *added[:5]):
        top = retriever.vector_search(chunk.embedding_text, k=5)[0]
        assert top.chunk_id == _exact_top(index, chunk.embedding_text) == chunk.chunk_id
    # The full-text index holds the new words and none of the removed chunks.
    fts_ids = {hit.chunk_id for hit in retriever.search("sixmonths", k=50) if hit.bm25_score}
    assert fts_ids == {chunk.chunk_id for chunk in edited}
    found = {hit.chunk_id for hit in retriever.search("offsite backups", k=50) if hit.bm25_score}
    assert found == {chunk.chunk_id for chunk in added}
    removed = {chunk.chunk_id for chunk in (*chunks[:20], *chunks[290:])}
    for query in ("keys rotate yearly", *(c.embedding_text for c in chunks[290:])):
        assert not removed & {hit.chunk_id for hit in retriever.search(query, k=20)}


def test_a_document_filtered_search_is_exact_on_an_ann_table(index: VaultIndex) -> None:
    chunks = _chunks(300)
    index.sync(chunks)
    retriever = HybridRetriever(index)
    hits = retriever.search(chunks[0].embedding_text, k=10, document="doc-012.md")
    # Every chunk of the document comes back, however far its vectors are from the query's.
    assert {hit.chunk_id for hit in hits} == {c.chunk_id for c in chunks[120:130]}


def test_a_change_of_ann_kind_rebuilds_the_index(tmp_path: Path) -> None:
    path = tmp_path / "vault.lance"
    VaultIndex(path, HashEmbedder(), ann_min_rows=THRESHOLD).sync(_chunks(300))
    pq = VaultIndex(path, HashEmbedder(), ann_min_rows=THRESHOLD, ann=AnnTuning(kind="ivf_pq"))
    pq.refresh_indexes()
    stats = pq.vector_index_stats()
    assert stats is not None and stats.index_type == "IVF_PQ"
    chunk = _chunks(300)[42]
    top = HybridRetriever(pq).vector_search(chunk.embedding_text, k=5)[0]
    assert top.chunk_id == chunk.chunk_id


def test_a_sync_with_nothing_to_write_still_applies_a_new_threshold(tmp_path: Path) -> None:
    path = tmp_path / "vault.lance"
    chunks = _chunks(300)
    VaultIndex(path, HashEmbedder(), ann_min_rows=1000).sync(chunks)
    lowered = VaultIndex(path, HashEmbedder(), ann_min_rows=THRESHOLD)
    assert lowered.vector_index_stats() is None
    report = lowered.sync(chunks)  # ``retrieval.ann_min_rows`` lowered, the vault unchanged
    assert report.embedded == report.deleted == 0
    assert lowered.vector_index_stats() is not None


def test_a_larger_change_retrains_the_index_on_the_whole_table(index: VaultIndex) -> None:
    chunks = _chunks(300)
    index.sync(chunks)
    chunks[:20] = [_chunk(n // 10, n % 10, "first edit") for n in range(20)]
    index.sync(chunks)
    stats = index.vector_index_stats()
    assert stats is not None and stats.num_unindexed_rows == 20
    chunks[20:40] = [_chunk(n // 10, n % 10, "second edit") for n in range(20, 40)]
    index.sync(chunks)  # 40 rows of 300 outside the index: more than RETRAIN_SHARE
    stats = index.vector_index_stats()
    assert stats is not None
    assert (stats.num_indexed_rows, stats.num_unindexed_rows) == (300, 0)
    retriever = HybridRetriever(index)
    for chunk in chunks[:40:7]:
        assert retriever.vector_search(chunk.embedding_text, k=3)[0].chunk_id == chunk.chunk_id
