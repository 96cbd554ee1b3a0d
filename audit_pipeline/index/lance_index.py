"""The vault index: chunk text, metadata and embeddings in one LanceDB table.

Embedding is the expensive step (tens of chunks per second on a laptop CPU), so the index is
synchronised incrementally: a chunk is embedded only when its id (a hash of document path and
text) is new, or when the embedding model changed (every row stores the model's name). A chunk
whose text is unchanged but whose offsets or section moved (an edit earlier in the same file)
keeps its vector and only has its metadata rewritten. The vector column's dimension is the one
the model's vectors have, never assumed: a switch to a provider's model (1,536 dimensions where
MiniLM has 384) re-embeds every chunk and replaces the table, whose column cannot change size.
All changes land in one commit (a ``merge_insert``, or the replacing table version), so a crash
leaves either the old table version or the new one, and the next sync repairs whatever is left
to do. Two audits
started at once sync one after the other (a file lock in the index folder): the second finds
the work done instead of racing the first's commit.

Vector search is exact (a flat scan) while the table is small: a scan of a few thousand
vectors costs milliseconds and never misses a neighbour. A flat scan grows with the table
(150-220 ms per query at 100k chunks on two CPU cores), so above ``ann_min_rows`` rows the
sync builds an approximate (ANN) index on the vector column, and queries search it with the
tuned parameters of ``AnnTuning`` (``benchmarks/retrieval.py`` measured them).
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import FTS, HnswSq, IvfPq

from audit_pipeline.embedding import Embedder
from audit_pipeline.vault.chunking import Chunk

_META_COLUMNS = (
    "chunk_id",
    "document",
    "title",
    "section",
    "text",
    "start",
    "end",
    "chunk_index",
    "word_count",
    "doc_hash",
    "embedding_model",
)


# Default of ``retrieval.ann_min_rows``: tables with more rows get an ANN vector index.
ANN_MIN_ROWS = 50_000
# The name the ANN index is created under (LanceDB's default for a column named "vector").
VECTOR_INDEX = "vector_idx"
# Rows written after the ANN index was trained are not in it: LanceDB searches them by a flat
# scan beside the index, exactly. That costs ~2 ms a query per thousand rows (2 CPU cores),
# so once more than this share of the table is outside the index, a sync trains it again.
RETRAIN_SHARE = 0.1

AnnKind = Literal["ivf_pq", "ivf_hnsw_sq"]


@dataclass(frozen=True)
class AnnTuning:
    """The ANN index built on a large table, and the parameters its searches use.

    Measured by ``benchmarks/retrieval.py`` on 100k chunks of 384 dimensions (2-core CPU,
    docs/benchmarks.md). IVF-HNSW-SQ (one HNSW graph per 100k rows over 8-bit scalar-quantised
    vectors) with ``ef`` 100 and a refine factor of 5: recall@10 1.000 of exact search (0.991
    without re-ranking), hybrid queries p95 ~20 ms where exact search takes ~270 ms. IVF-PQ
    (sqrt(rows) partitions, 48 sub-vectors) needs re-ranking more (recall 0.826 without it,
    0.999 with a refine factor of 10; more probes did not help), was no faster, and took
    longer to build (93-280 s against 52-209 s at 100k rows; 30 s against 11 s at 20k). Its one
    advantage, a smaller index (1.5 MB against 11.7 MB at 20k chunks), does not matter next to
    the table. It stays selectable so that the benchmark can compare the two.
    ``refine_factor`` re-ranks ``refine_factor * limit`` candidates by their full vectors.
    """

    kind: AnnKind = "ivf_hnsw_sq"
    nprobes: int = 20  # IVF partitions searched (HNSW has one per 100k rows: all of them)
    refine_factor: int = 5  # 0: no re-ranking
    ef: int = 100  # HNSW only: candidates kept while walking the graph

    def index_config(self, rows: int, dimension: int) -> IvfPq | HnswSq:
        """LanceDB's configuration of the index for a table of ``rows`` vectors."""
        if self.kind == "ivf_hnsw_sq":
            # Each partition is its own graph: few, large partitions keep the graphs useful.
            return HnswSq(distance_type="cosine", num_partitions=max(1, rows // 100_000))
        # sqrt(rows) partitions (LanceDB's rule of thumb); 8 dimensions per PQ sub-vector
        # (twice LanceDB's default precision) when the dimension allows it.
        return IvfPq(
            distance_type="cosine",
            num_partitions=max(1, int(rows**0.5)),
            num_sub_vectors=dimension // 8 if dimension % 8 == 0 else None,
        )

    def tune(self, query: Any, limit: int) -> Any:
        """``query`` (a LanceDB vector query for ``limit`` rows) with this index's search
        parameters. HNSW refuses an ``ef`` below the number of candidates it must return
        (``limit``, times the refine factor), so ``ef`` is raised to that when needed."""
        query = query.nprobes(self.nprobes)
        if self.refine_factor:
            query = query.refine_factor(self.refine_factor)
        if self.kind != "ivf_hnsw_sq":
            return query
        return query.ef(max(self.ef, limit * max(1, self.refine_factor)))

    @property
    def index_type(self) -> str:
        """The type LanceDB's index statistics report for an index of this kind."""
        return "IVF_HNSW_SQ" if self.kind == "ivf_hnsw_sq" else "IVF_PQ"


@dataclass(frozen=True)
class SyncReport:
    """What one synchronisation did; shown as asset metadata."""

    total: int
    embedded: int
    reused: int
    rewritten: int
    deleted: int
    table_version: int

    @property
    def changed(self) -> bool:
        return bool(self.embedded or self.rewritten or self.deleted)


def sql_string(value: str) -> str:
    """Quote a value for a LanceDB filter expression."""
    return "'" + value.replace("'", "''") + "'"


def table_schema(dimension: int) -> pa.Schema:
    """The table's columns, for vectors of ``dimension`` floats."""
    return pa.schema(
        [
            ("chunk_id", pa.string()),
            ("document", pa.string()),
            ("title", pa.string()),
            ("section", pa.string()),
            ("text", pa.string()),
            ("start", pa.int64()),
            ("end", pa.int64()),
            ("chunk_index", pa.int32()),
            ("word_count", pa.int32()),
            ("doc_hash", pa.string()),
            ("embedding_model", pa.string()),
            ("vector", pa.list_(pa.float32(), dimension)),
        ]
    )


def _row(chunk: Chunk, model: str) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id,
        "document": chunk.doc_id,
        "title": chunk.title,
        "section": chunk.section,
        "text": chunk.text,
        "start": chunk.start,
        "end": chunk.end,
        "chunk_index": chunk.chunk_index,
        "word_count": chunk.word_count,
        "doc_hash": chunk.doc_hash,
        "embedding_model": model,
    }


class VaultIndex:
    """A LanceDB table of vault chunks with a vector column and a native full-text index.

    ``ann_min_rows``: above this many rows a sync builds (and keeps up to date) the ANN index
    ``ann`` describes; at or below it any ANN index is dropped, so small vaults keep exact
    results. Queries use the ANN index whenever the table has one (``tune_vector_query``),
    whatever ``ann_min_rows`` the reading process was given.
    """

    def __init__(
        self,
        path: str | Path,
        embedder: Embedder,
        table_name: str = "vault_chunks",
        ann_min_rows: int = ANN_MIN_ROWS,
        ann: AnnTuning | None = None,
    ):
        self.path = Path(path)
        self.embedder = embedder
        self.table_name = table_name
        self.ann_min_rows = ann_min_rows
        self.ann = ann or AnnTuning()
        self._db: Any = None

    def _connect(self) -> Any:
        if self._db is None:
            self.path.mkdir(parents=True, exist_ok=True)
            self._db = lancedb.connect(str(self.path))
        return self._db

    def exists(self) -> bool:
        return self.table_name in self._connect().list_tables().tables

    def table(self) -> Any:
        if not self.exists():
            raise LookupError(
                f"vault index table {self.table_name!r} not found in {self.path}: "
                "materialise the vault_index asset first (make audit)"
            )
        return self._connect().open_table(self.table_name)

    async def async_table(self) -> Any:
        """The table through LanceDB's async API, where many queries can run at once."""
        self.table()  # the same clear error when the index was never built
        db = await lancedb.connect_async(str(self.path))
        return await db.open_table(self.table_name)

    def count(self) -> int:
        return int(self.table().count_rows()) if self.exists() else 0

    def _existing_metadata(self) -> dict[str, dict[str, Any]]:
        if not self.exists():
            return {}
        rows = self.table().search().select(list(_META_COLUMNS)).limit(None).to_arrow()
        return {row["chunk_id"]: row for row in rows.to_pylist()}

    def _vectors_for(self, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        if not chunk_ids:
            return {}
        id_list = ", ".join(sql_string(cid) for cid in chunk_ids)
        rows = (
            self.table()
            .search()
            .where(f"chunk_id IN ({id_list})")
            .select(["chunk_id", "vector"])
            .limit(None)
            .to_arrow()
            .to_pylist()
        )
        return {row["chunk_id"]: row["vector"] for row in rows}

    @contextmanager
    def _sync_lock(self) -> Iterator[None]:
        """Held while a process reads, embeds and commits: one sync at a time per index."""
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.path / ".sync.lock", "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def sync(self, chunks: Sequence[Chunk]) -> SyncReport:
        """Make the table hold exactly ``chunks``, embedding only what is new."""
        with self._sync_lock():
            return self._sync(chunks)

    def _sync(self, chunks: Sequence[Chunk]) -> SyncReport:
        model = self.embedder.name
        existing = self._existing_metadata()
        desired = {chunk.chunk_id: chunk for chunk in chunks}

        to_embed: list[Chunk] = []
        to_rewrite: list[Chunk] = []
        for chunk in desired.values():
            old = existing.get(chunk.chunk_id)
            if old is None or old["embedding_model"] != model:
                to_embed.append(chunk)
            elif old != _row(chunk, model):
                to_rewrite.append(chunk)
        removed = [cid for cid in existing if cid not in desired]

        if not (to_embed or to_rewrite or removed):
            # Nothing to write; the ANN index may still disagree with ``ann_min_rows`` (changed
            # in audit.yaml, or a crash between the last commit and its index update).
            table = self.table()
            self._refresh_vector_index(table, len(desired))
            return SyncReport(len(desired), 0, len(desired), 0, 0, table.version)

        stored = self._stored_dimension()
        vectors = self._embed(to_embed)
        dimension = vectors.shape[1] if to_embed else stored
        if stored is not None and dimension != stored and len(to_embed) < len(desired):
            # The same model name now gives vectors of another size (a local model folder
            # replaced in place): no stored vector fits the new column, so embed them all.
            to_embed, to_rewrite = list(desired.values()), []
            vectors = self._embed(to_embed)
        reused_vectors = self._vectors_for([chunk.chunk_id for chunk in to_rewrite])
        rows = [
            _row(chunk, model) | {"vector": vec}
            for chunk, vec in zip(to_embed, vectors, strict=True)
        ]
        rows += [
            _row(chunk, model) | {"vector": reused_vectors[chunk.chunk_id]} for chunk in to_rewrite
        ]
        assert dimension is not None  # either something was embedded or a table exists
        self._write(rows, removed, dimension, replace=stored is not None and dimension != stored)
        return SyncReport(
            total=len(desired),
            embedded=len(to_embed),
            reused=len(desired) - len(to_embed),
            rewritten=len(to_rewrite),
            deleted=len(removed),
            table_version=self.table().version,
        )

    def _embed(self, chunks: Sequence[Chunk]) -> np.ndarray:
        """The chunks' vectors; nothing is called for no chunks (a provider call costs money,
        and an empty batch would not say the model's dimension anyway)."""
        if not chunks:
            return np.zeros((0, 0), dtype=np.float32)
        return self.embedder.embed([chunk.embedding_text for chunk in chunks])

    def _stored_dimension(self) -> int | None:
        """The vector column's size in the existing table (None when there is no table)."""
        if not self.exists():
            return None
        return int(self.table().schema.field("vector").type.list_size)

    def _write(
        self, rows: list[dict[str, Any]], removed: list[str], dimension: int, replace: bool
    ) -> None:
        """Commit ``rows`` and the removals; ``replace`` writes a new table version holding
        only ``rows`` (every chunk, re-embedded), for a vector column of another size."""
        schema = table_schema(dimension)
        data = pa.Table.from_pylist(rows, schema=schema)
        db = self._connect()
        if replace or not self.exists():
            mode = "overwrite" if replace else "create"
            table = db.create_table(self.table_name, data=data, schema=schema, mode=mode)
        else:
            table = db.open_table(self.table_name)
            delete_filter = (
                f"chunk_id IN ({', '.join(sql_string(cid) for cid in removed)})"
                if removed
                else None
            )
            if rows:
                builder = (
                    table.merge_insert("chunk_id")
                    .when_matched_update_all()
                    .when_not_matched_insert_all()
                )
                if delete_filter:
                    builder = builder.when_not_matched_by_source_delete(delete_filter)
                builder.execute(data)
            elif delete_filter:
                table.delete(delete_filter)
        self._refresh_indexes(table)

    def refresh_indexes(self) -> None:
        """Rebuild the full-text index and bring the ANN index in line with ``ann_min_rows``
        (what a sync does after its commit; for a table written by other means)."""
        with self._sync_lock():
            self._refresh_indexes(self.table())

    def _refresh_indexes(self, table: Any) -> None:
        rows = int(table.count_rows())
        if not rows:
            return
        # The full-text index covers the rows present when it was built: rebuild it after any
        # change (a fraction of a second for tens of thousands of chunks, seconds at 100k).
        # A full rebuild, not ``optimize``'s incremental update, keeps the BM25 statistics
        # exact after deletions. Positions make phrase queries possible: retrieval uses them
        # for exact identifiers.
        table.create_index("text", config=FTS(with_position=True), replace=True)
        self._refresh_vector_index(table, rows)

    def _refresh_vector_index(self, table: Any, rows: int) -> None:
        """Build, retrain or drop the ANN index for a table of ``rows`` rows.

        A small sync leaves its new rows outside the index, where LanceDB scans them exactly
        (deleted and replaced rows stay in the index as tombstones that searches skip). The
        alternative, ``optimize()``'s incremental update, was measured worse at 100k chunks:
        after 1 % of the chunks changed, vector queries took ~14 ms instead of ~6 ms and recall
        fell from 0.997 to 0.993 (IVF-PQ, ``benchmarks/retrieval.py``'s data). Past
        ``RETRAIN_SHARE`` the index is trained again on the whole table (one to four minutes
        at 100k chunks on 2 cores, next to the ~15 minutes it takes to embed 10k changed
        chunks with the shipped model).
        """
        stats = self.vector_index_stats(table)
        if rows <= self.ann_min_rows:
            if stats is not None:
                table.drop_index(VECTOR_INDEX)
            return
        if (
            stats is None
            or stats.index_type != self.ann.index_type
            or stats.num_unindexed_rows > RETRAIN_SHARE * rows
        ):
            dimension = int(table.schema.field("vector").type.list_size)
            config = self.ann.index_config(rows, dimension)
            table.create_index("vector", config=config, replace=True, name=VECTOR_INDEX)

    def vector_index_stats(self, table: Any | None = None) -> Any | None:
        """LanceDB's statistics of the ANN index (``IndexStatistics``), None without one."""
        table = self.table() if table is None else table
        if not any(index.name == VECTOR_INDEX for index in table.list_indices()):
            return None
        return table.index_stats(VECTOR_INDEX)

    def tune_vector_query(self, query: Any, table: Any, limit: int, filtered: bool = False) -> Any:
        """``query`` (a vector query of ``table`` for ``limit`` rows) with the ANN search
        parameters when the table has an ANN index; unchanged (an exact, flat search) when it
        has none.

        A ``filtered`` query (prefiltered to one document) scans its few rows exactly instead:
        the probed ANN partitions may hold none of them, and it would come back short.
        """
        if not any(index.name == VECTOR_INDEX for index in table.list_indices()):
            return query
        return query.bypass_vector_index() if filtered else self.ann.tune(query, limit)

    def embed_queries(self, queries: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(queries))
