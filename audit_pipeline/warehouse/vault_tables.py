"""Rows for the vault tables: what analysts see of the vault state (no vectors).

Each document's indexed text is kept beside it, so an analyst can read what a PDF, HTML or
DOCX file became and find every chunk and evidence offset in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from audit_pipeline.vault.chunking import Chunk
from audit_pipeline.vault.documents import VaultScan
from audit_pipeline.warehouse.store import Warehouse


def write_vault_documents(warehouse: Warehouse, scan: VaultScan) -> int:
    """Replace the document table (and skipped-file log) with the current vault state."""
    now = datetime.now(UTC)
    documents = [
        {
            "doc_id": doc.doc_id,
            "title": doc.title,
            "content_hash": doc.content_hash,
            "size_bytes": doc.size_bytes,
            "modified_at": doc.modified_at,
            "vault_hash": scan.state_hash,
            "indexed_at": now,
            "source_format": doc.source_format,
            "text": doc.text,
            "page_starts": list(doc.page_starts) or None,
            "dropped_share": doc.dropped_share,
        }
        for doc in scan.documents
    ]
    skipped = [
        {"path": s.path, "reason": s.reason, "vault_hash": scan.state_hash, "seen_at": now}
        for s in scan.skipped
    ]
    return warehouse.replace_many(
        [("vault_documents", documents, None), ("vault_skipped_files", skipped, None)]
    )


def write_vault_chunks(warehouse: Warehouse, chunks: Sequence[Chunk]) -> int:
    rows = [
        {
            "chunk_id": chunk.chunk_id,
            "doc_id": chunk.doc_id,
            "section": chunk.section,
            "chunk_index": chunk.chunk_index,
            "start_char": chunk.start,
            "end_char": chunk.end,
            "word_count": chunk.word_count,
            "text": chunk.text,
            "doc_hash": chunk.doc_hash,
            "first_page": chunk.first_page,
            "last_page": chunk.last_page,
        }
        for chunk in chunks
    ]
    return warehouse.replace("vault_chunks", rows)
