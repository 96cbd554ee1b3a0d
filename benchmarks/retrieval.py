"""Retrieval up to a million chunks: hybrid latency, ANN recall against exact search.

What is synthetic, and why: embedding 100k chunks with all-MiniLM-L6-v2 takes over two hours
on two CPU cores (README *Benchmarks*: ~12 chunks/s), so neither the texts nor the vectors come
from the model. The vectors are 384-d unit vectors drawn around a hierarchy of centroids
(200 topics, ~10,000 documents of 3-20 chunks, each chunk near its document and each document
near its topic), so a query has real near neighbours (the chunks of its document, then those
of its topic) instead of the uniform nothing of random vectors; all of them share a common
direction, as text embeddings do (mean cosine of two chunks ~0.56; all-MiniLM-L6-v2 gives the
sample vault's ~0.55), which crowds them together and makes quantised distances hard to rank.
Chunk texts are 60-400 words
of a synthetic vocabulary: Zipf-distributed general words plus the words of the document's
topic, and one control identifier each (``CTL-00042.3``), so BM25 and the identifier phrase
queries have posting lists of realistic shape. A query is a few words of one chunk (a third of
them with its identifier) and a vector near that chunk's (a paraphrase, not a copy).

Everything else is the product: the chunks go in through ``VaultIndex.sync`` (the embedder is
a lookup of the synthetic vectors), which writes the LanceDB table, the full-text index and
the ANN index as the ``vault_index`` asset does, and every query goes through
``HybridRetriever`` (vector + BM25 + identifier phrases, fused by RRF).

Prints, for exact (flat) search and then for each ANN kind (IVF-HNSW-SQ, IVF-PQ):
the index build time, recall@10 of the vector side against exact search and vector-only
latency over a small sweep of the search parameters, then hybrid-query latency with the
kind's tuned parameters (``TUNED``; the first kind's are the product's defaults): one query
per call (what a user waits for, query embedding excluded: measured separately for the
shipped model) and per query within ``search_many`` batches (what the evidence stage pays).
After each kind, an incremental sync (1 % of the chunks edited, accumulating): its time, how
many rows it left outside the ANN index, and the figures again.

    python -m benchmarks.retrieval [--chunks 100000] [--queries 200]
        [--kinds ivf_hnsw_sq,ivf_pq] [--ann-min-rows N] [--no-model] [--no-exact-hybrid]
        [--json OUT]

``--json`` writes ``{"chunks", "build_s", "disk_mb", "p50_ms", "p95_ms", "recall_at_10"}`` (the
default ANN index's build time and the table's size with it, single-query hybrid latency and
vector recall with the product's default ANN index and parameters) and the rest
under ``"details"``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from audit_pipeline.index.lance_index import AnnKind, AnnTuning, VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.vault.chunking import Chunk

DIMENSION = 384
TOPICS = 200
GENERAL_WORDS = 20_000
TOPIC_WORDS = 150
K = 10
BATCH = 64
MODEL = "synthetic-384"
# Each kind with its tuned parameters (the first is the product's default, ``AnnTuning()``).
TUNED: dict[AnnKind, AnnTuning] = {
    "ivf_hnsw_sq": AnnTuning(),
    "ivf_pq": AnnTuning(kind="ivf_pq", nprobes=20, refine_factor=10),
}
# Search parameters tried per kind.
SWEEP: dict[AnnKind, list[dict[str, int]]] = {
    "ivf_pq": [{"nprobes": n, "refine_factor": r} for n in (10, 20, 40) for r in (0, 5, 10, 20)],
    # One HNSW graph per 100k rows: past 100k, how many graphs a query walks matters too.
    "ivf_hnsw_sq": [
        {"nprobes": n, "ef": e, "refine_factor": r}
        for n in (1, 4, 20)
        for e in (50, 100)
        for r in (0, 5)
    ],
}


@dataclass(frozen=True)
class Query:
    text: str
    vector: np.ndarray


class LookupEmbedder:
    """The synthetic vectors, looked up by text (chunks' embedding texts and queries)."""

    def __init__(self) -> None:
        self.vectors: dict[str, np.ndarray] = {}

    @property
    def name(self) -> str:
        return MODEL

    @property
    def dimension(self) -> int:
        return DIMENSION

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.vectors[text] for text in texts]).astype(np.float32)


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def _noise(rng: np.random.Generator, rows: int, scale: float) -> np.ndarray:
    """Gaussian noise of norm ~``scale`` per row."""
    return rng.standard_normal((rows, DIMENSION)).astype(np.float32) * (scale / DIMENSION**0.5)


class SyntheticVault:
    """Chunks, their vectors and queries (see the module docstring)."""

    def __init__(self, chunks: int, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        rng = self.rng
        self.general = np.array([f"g{i}" for i in range(GENERAL_WORDS)])
        ranks = np.arange(1, GENERAL_WORDS + 1, dtype=np.float64)
        zipf = ranks**-1.1 / np.sum(ranks**-1.1)
        # ``rng.choice(..., p=zipf)`` draws exactly this way, but sums and checks ``p``
        # anew on every call: done once, a million chunks take ~4 min to draw instead of ~9.
        self.general_cdf = np.cumsum(zipf)
        self.general_cdf /= self.general_cdf[-1]
        self.topic_words = np.array(
            [[f"t{t}x{j}" for j in range(TOPIC_WORDS)] for t in range(TOPICS)]
        )
        topic_centroids = _unit(rng.standard_normal((TOPICS, DIMENSION)))
        sizes: list[int] = []
        total = 0  # kept, not summed again per document (a million chunks: ~90k documents)
        while total < chunks:
            sizes.append(int(rng.integers(3, 21)))
            total += sizes[-1]
        sizes[-1] -= total - chunks
        if sizes[-1] <= 0:
            sizes.pop()
        doc_topics = rng.integers(0, TOPICS, len(sizes))
        doc_vectors = _unit(topic_centroids[doc_topics] + _noise(rng, len(sizes), 1.0))
        self.chunks: list[Chunk] = []
        owners: list[int] = []
        for doc, size in enumerate(sizes):
            for index in range(size):
                self.chunks.append(self._chunk(doc, int(doc_topics[doc]), index))
                owners.append(doc)
        spread = _unit(doc_vectors[owners] + _noise(rng, len(owners), 0.8))
        # The common direction of text embeddings (see the module docstring).
        common = _unit(rng.standard_normal(DIMENSION))
        self.vectors = _unit(0.75 * common + 0.66 * spread)
        self.doc_topics = doc_topics
        self.edits = 0

    def _words(self, topic: int, count: int) -> list[str]:
        drawn = self.general_cdf.searchsorted(self.rng.random(count), side="right")
        general = self.general[drawn]
        topical = self.topic_words[topic][self.rng.integers(0, TOPIC_WORDS, count)]
        mask = self.rng.random(count) < 0.25
        return list(np.where(mask, topical, general))

    def _chunk(self, doc: int, topic: int, index: int, edit: int = 0) -> Chunk:
        words = self._words(topic, int(self.rng.integers(60, 401)))
        words.insert(int(self.rng.integers(0, len(words))), f"CTL-{doc:05d}.{index}")
        text = " ".join(words)
        if edit:
            text = f"{text} revised {edit}"
        title = f"Document {doc}"
        return Chunk(
            chunk_id=f"doc{doc:05d}-{index:02d}-{edit}",
            doc_id=f"doc-{doc:05d}.md",
            title=title,
            section_path=(title, f"Section {index}"),
            chunk_index=index,
            text=text,
            start=0,
            end=len(text),
            word_count=len(words),
            doc_hash=f"{doc}-{edit}",
        )

    def embedder(self) -> LookupEmbedder:
        embedder = LookupEmbedder()
        for chunk, vector in zip(self.chunks, self.vectors, strict=True):
            embedder.vectors[chunk.embedding_text] = vector
        return embedder

    def queries(self, count: int, embedder: LookupEmbedder) -> list[Query]:
        """Queries near random chunks, registered with ``embedder``."""
        queries: list[Query] = []
        for number, target in enumerate(self.rng.choice(len(self.chunks), count, replace=False)):
            chunk = self.chunks[int(target)]
            words = chunk.text.split()
            picked = [w for w in words if w.startswith("t")][:4] + [
                w for w in words if w.startswith("g") and len(w) > 3
            ][:2]
            if number % 3 == 0:
                picked.append(next(w for w in words if w.startswith("CTL-")))
            text = f"q{number}: what does the policy say about " + " ".join(picked)
            vector = _unit(self.vectors[int(target)] + _noise(self.rng, 1, 0.5)[0])
            embedder.vectors[text] = vector
            queries.append(Query(text, vector))
        return queries

    def edit(self, share: float, embedder: LookupEmbedder) -> list[Chunk]:
        """Edit ``share`` of the chunks (new text, a vector moved a little) and return the new
        chunk list; edits accumulate over calls, as a vault's do."""
        self.edits += 1
        for target in self.rng.choice(len(self.chunks), int(len(self.chunks) * share), False):
            old = self.chunks[int(target)]
            doc = int(old.doc_id[4:9])
            new = self._chunk(doc, int(self.doc_topics[doc]), old.chunk_index, self.edits)
            vector = _unit(self.vectors[int(target)] + _noise(self.rng, 1, 0.3)[0])
            embedder.vectors[new.embedding_text] = vector
            self.chunks[int(target)], self.vectors[int(target)] = new, vector
        return list(self.chunks)


def _ms(samples: Sequence[float]) -> tuple[float, float]:
    """p50 and p95 in milliseconds of samples in seconds."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1e3, p95 * 1e3


def _timed(items: Sequence[Any], call: Callable[[Any], Any]) -> tuple[list[float], list[Any]]:
    times, results = [], []
    for item in items:
        started = time.perf_counter()
        results.append(call(item))
        times.append(time.perf_counter() - started)
    return times, results


def _exact_top(index: VaultIndex, queries: Sequence[Query]) -> tuple[list[float], list[list[str]]]:
    """Exact top-k ids of every query by a flat scan (the ANN index bypassed), and its times."""
    table = index.table()

    def search(query: Query) -> list[str]:
        rows = (
            table.search(query.vector, vector_column_name="vector")
            .metric("cosine")
            .bypass_vector_index()
            .select(["chunk_id", "_distance"])
            .limit(K)
            .to_list()
        )
        return [row["chunk_id"] for row in rows]

    return _timed(queries, search)


def _recall(found: Sequence[Sequence[str]], exact: Sequence[Sequence[str]]) -> float:
    return statistics.mean(len(set(f) & set(e)) / len(e) for f, e in zip(found, exact, strict=True))


def _vector_side(
    retriever: HybridRetriever, queries: Sequence[Query], exact: Sequence[Sequence[str]]
) -> dict[str, float]:
    for query in queries[:20]:  # warm the index caches
        retriever.vector_search(query.text, k=K)
    times, hits = _timed(queries, lambda q: retriever.vector_search(q.text, k=K))
    p50, p95 = _ms(times)
    ids = [[hit.chunk_id for hit in found] for found in hits]
    return {"recall_at_10": _recall(ids, exact), "p50_ms": p50, "p95_ms": p95}


def _hybrid(retriever: HybridRetriever, queries: Sequence[Query]) -> dict[str, float]:
    """Single-query latency (p50, p95) and per-query time within batches of ``BATCH``."""
    texts = [q.text for q in queries]
    retriever.search_many(texts[:BATCH], k=5)  # warm caches
    times, _ = _timed(texts, lambda text: retriever.search(text, k=5))
    p50, p95 = _ms(times)
    batches = [texts[i : i + BATCH] for i in range(0, len(texts), BATCH)]
    batch_times, _ = _timed(batches, lambda batch: retriever.search_many(batch, k=5))
    per_query = sum(batch_times) / len(texts) * 1e3
    return {"p50_ms": p50, "p95_ms": p95, "batch_per_query_ms": per_query}


def _embedding_latency(queries: Sequence[Query]) -> tuple[float, float] | None:
    """p50 / p95 of embedding one query with the shipped model (None if it cannot load)."""
    try:
        from audit_pipeline.embedding import SentenceTransformerEmbedder

        model = SentenceTransformerEmbedder()
        model.embed(["warm-up"])
    except Exception as error:  # the benchmark's other figures do not need the model
        print(f"query embedding: model unavailable ({error})")
        return None
    times, _ = _timed([q.text for q in queries[:100]], lambda text: model.embed([text]))
    return _ms(times)


def _ann_figures(
    kind: AnnKind,
    path: Path,
    embedder: LookupEmbedder,
    ann_min_rows: int,
    queries: Sequence[Query],
    exact: Sequence[Sequence[str]],
    fts_build_s: float,
) -> dict[str, Any]:
    """Build the ANN index of ``kind`` (replacing any other), sweep its search parameters,
    and measure its tuned parameters on the vector side and on hybrid queries."""
    tuning = TUNED[kind]
    index = VaultIndex(path, embedder, ann_min_rows=ann_min_rows, ann=tuning)
    started = time.perf_counter()
    index.refresh_indexes()
    build_s = time.perf_counter() - started - fts_build_s
    figures: dict[str, Any] = {"build_s": build_s, "disk_mb": _disk_mb(path), "sweep": []}
    print(
        f"\n{kind}: built in ~{build_s:.0f} s (besides the full-text index), table and indexes "
        f"{figures['disk_mb']:.0f} MB on disk, {_load()}"
    )
    for params in SWEEP[kind]:
        swept = VaultIndex(path, embedder, ann=replace(tuning, **params))
        side = _vector_side(HybridRetriever(swept), queries, exact)
        figures["sweep"].append(params | side)
        _print_row(f"  vector {params}", side)
    figures["vector"] = _vector_side(HybridRetriever(index), queries, exact)
    figures["hybrid"] = _hybrid(HybridRetriever(index), queries)
    print(f"  tuned parameters: {tuning}, {_load()}")
    _print_row("  vector", figures["vector"])
    _print_row("  hybrid", figures["hybrid"])
    return figures


def _edit_and_sync(
    vault: SyntheticVault,
    kind: AnnKind,
    path: Path,
    embedder: LookupEmbedder,
    ann_min_rows: int,
    queries: Sequence[Query],
    details: dict[str, Any],
) -> list[list[str]]:
    """Edit a share of the chunks, sync (the product's incremental path: read, write, FTS
    rebuild, ANN update) and measure again; returns the new exact top-k."""
    index = VaultIndex(path, embedder, ann_min_rows=ann_min_rows, ann=TUNED[kind])
    chunks = vault.edit(details["edit_share"], embedder)
    started = time.perf_counter()
    report = index.sync(chunks)
    sync_s = time.perf_counter() - started
    stats = index.vector_index_stats()
    _, exact = _exact_top(index, queries)
    after = {
        "edited": report.embedded,
        "seconds": sync_s,
        "unindexed_rows": stats.num_unindexed_rows if stats else None,
        "vector": _vector_side(HybridRetriever(index), queries, exact),
        "hybrid": _hybrid(HybridRetriever(index), queries),
    }
    details[kind]["after_sync"] = after
    print(
        f"  incremental sync: {report.embedded} edited chunks in {sync_s:.1f} s; rows outside "
        f"the ANN index after it: {after['unindexed_rows']}, {_load()}"
    )
    _print_row("  vector after the sync", after["vector"])
    _print_row("  hybrid after the sync", after["hybrid"])
    return exact


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ann-min-rows", type=int, default=None, help="default: chunks // 2")
    parser.add_argument("--edit-share", type=float, default=0.01)
    parser.add_argument("--kinds", default=",".join(TUNED), help="ANN kinds to measure")
    parser.add_argument("--no-model", action="store_true", help="skip the query-embedding figure")
    parser.add_argument(
        "--no-exact-hybrid",
        action="store_true",
        help="skip hybrid queries over exact search (minutes per figure at a million chunks); "
        "the exact vector top-k that recall is measured against is always computed",
    )
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    ann_min_rows = args.chunks // 2 if args.ann_min_rows is None else args.ann_min_rows
    details: dict[str, Any] = {"edit_share": args.edit_share}

    started = time.perf_counter()
    vault = SyntheticVault(args.chunks)
    embedder = vault.embedder()
    queries = vault.queries(args.queries, embedder)
    print(
        f"synthetic vault         {len(vault.chunks)} chunks, {time.perf_counter() - started:.0f} s"
    )

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vault.lance"
        # Exact search first: a threshold above the table keeps it flat.
        flat = VaultIndex(path, embedder, ann_min_rows=len(vault.chunks))
        started = time.perf_counter()
        flat.sync(vault.chunks)
        details["sync_flat_s"] = time.perf_counter() - started
        started = time.perf_counter()
        flat.refresh_indexes()
        details["fts_build_s"] = time.perf_counter() - started
        details["flat_disk_mb"] = _disk_mb(path)
        print(
            f"sync (write + FTS)      {details['sync_flat_s']:.0f} s "
            f"(full-text index alone {details['fts_build_s']:.1f} s), "
            f"{details['flat_disk_mb']:.0f} MB on disk"
        )
        exact_times, exact = _exact_top(flat, queries)
        flat_retriever = HybridRetriever(flat)
        exact_p50, exact_p95 = _ms(exact_times)
        details["exact"] = {"vector": {"p50_ms": exact_p50, "p95_ms": exact_p95}}
        _print_row("exact vector", details["exact"]["vector"])
        if not args.no_exact_hybrid:
            details["exact"]["hybrid"] = _hybrid(flat_retriever, queries)
            _print_row("exact hybrid", details["exact"]["hybrid"])

        for kind in args.kinds.split(","):
            details[kind] = _ann_figures(
                kind, path, embedder, ann_min_rows, queries, exact, details["fts_build_s"]
            )
            exact = _edit_and_sync(vault, kind, path, embedder, ann_min_rows, queries, details)

    if not args.no_model:
        embedding = _embedding_latency(queries)
        if embedding is not None:
            details["query_embedding"] = {"p50_ms": embedding[0], "p95_ms": embedding[1]}
            print(
                f"\nquery embedding (all-MiniLM-L6-v2, one query, not in the figures above): "
                f"p50 {embedding[0]:.1f} ms, p95 {embedding[1]:.1f} ms"
            )

    kind = AnnTuning().kind if AnnTuning().kind in details else args.kinds.split(",")[0]
    product = details[kind]
    result = {
        "chunks": len(vault.chunks),
        "build_s": product["build_s"],
        "disk_mb": product["disk_mb"],
        "p50_ms": product["hybrid"]["p50_ms"],
        "p95_ms": product["hybrid"]["p95_ms"],
        "recall_at_10": product["vector"]["recall_at_10"],
        "details": details,
    }
    print(
        f"\n{kind}: hybrid p50 {result['p50_ms']:.1f} ms, "
        f"p95 {result['p95_ms']:.1f} ms (goal <= 50), "
        f"vector recall@10 {result['recall_at_10']:.3f} (goal >= 0.95)"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


def _disk_mb(path: Path) -> float:
    """The table's size on disk with every index and version LanceDB keeps, in MB."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def _load() -> str:
    """The machine's load: these figures come from a shared 2-core machine, and say so."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min) / {five:.1f} (5 min)"


def _print_row(label: str, figures: dict[str, Any]) -> None:
    parts = [
        f"{key} {value:.3f}" if "recall" in key else f"{key} {value:.1f}"
        for key, value in figures.items()
    ]
    print(f"{label:<40} " + ", ".join(parts))


if __name__ == "__main__":
    main()
