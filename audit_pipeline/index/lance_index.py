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
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import FTS

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


def _schema(dimension: int) -> pa.Schema:
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
    """A LanceDB table of vault chunks with a vector column and a native full-text index."""

    def __init__(self, path: str | Path, embedder: Embedder, table_name: str = "vault_chunks"):
        self.path = Path(path)
        self.embedder = embedder
        self.table_name = table_name
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
            return SyncReport(len(desired), 0, len(desired), 0, 0, self.table().version)

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
        schema = _schema(dimension)
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
        # The full-text index covers the rows present when it was built: rebuild it after any
        # change (a fraction of a second for tens of thousands of chunks).
        if table.count_rows():
            # Positions make phrase queries possible: retrieval uses them for exact identifiers.
            table.create_index("text", config=FTS(with_position=True), replace=True)

    def embed_queries(self, queries: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(queries))
