"""Embeddings kept on disk between runs, keyed by model and text.

A weekly audit, a re-verification after a vault edit and an unchanged re-run embed the same
claims, questions and passages again and again; on a CPU that is most of what retrieval and
the offline checks cost, and with a provider model it is also what they are billed. A SQLite
file (one row per model and text: a sha256 key and the float32 vector) lets every run, in any
process, reuse what an earlier one computed. SQLite because it is in the standard library,
takes concurrent writers from several processes (WAL, a busy timeout), and looks a key up
without loading the rest.

The key is the model's name and the text, so a different model (or provider model id) never
reads another's vectors. A model loaded from a local directory is named by its path: replace
the weights at the same path and the cache file must be deleted too.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path

import numpy as np

from audit_pipeline.embedding import Embedder

_LOOKUP_CHUNK = 500  # keys per query: SQLite's host-parameter limit is 999 on old builds


class PersistentEmbeddingCache:
    """An :class:`Embedder` that answers from ``path`` and embeds only texts it has not seen."""

    def __init__(self, inner: Embedder, path: str | Path) -> None:
        self.inner = inner
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as con:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB)")

    def __repr__(self) -> str:
        return f"PersistentEmbeddingCache({self.inner!r}, {str(self.path)!r})"

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with closing(sqlite3.connect(self.path, timeout=60.0)) as con, con:
            yield con

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.inner.name}\0{text}".encode()).hexdigest()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return self.inner.embed(texts)
        keys = {text: self._key(text) for text in dict.fromkeys(texts)}
        found = self._lookup(list(keys.values()))
        missing = [text for text, key in keys.items() if key not in found]
        if missing:
            vectors = np.asarray(self.inner.embed(missing), dtype=np.float32)
            rows = [(keys[t], v.tobytes()) for t, v in zip(missing, vectors, strict=True)]
            with self._connect() as con:
                con.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?)", rows)
            found.update((keys[t], v) for t, v in zip(missing, vectors, strict=True))
        return np.stack([found[keys[text]] for text in texts])

    def _lookup(self, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._connect() as con:
            for start in range(0, len(keys), _LOOKUP_CHUNK):
                chunk = keys[start : start + _LOOKUP_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = con.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk)
                for key, blob in rows:
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        return found


def cached(embedder: Embedder, path: str | Path | None) -> Embedder:
    """``embedder`` behind the cache at ``path`` (``storage.embedding_cache``); as it is when
    the cache is off."""
    return embedder if path is None else PersistentEmbeddingCache(embedder, path)
