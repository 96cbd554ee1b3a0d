"""Vault and index assets (groups `vault` and `index`): files → documents → chunks → LanceDB
index (incremental)."""

import logging
from dataclasses import dataclass

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetExecutionContext,
    MetadataValue,
    Output,
    asset,
    asset_check,
)

from audit_pipeline.defs.resources import (
    AuditResource,
    VaultIndexResource,
    WarehouseResource,
)
from audit_pipeline.logs import log_event
from audit_pipeline.reports.markdown import markdown_table
from audit_pipeline.runs.input_tables import write_vault_chunks, write_vault_documents
from audit_pipeline.vault.chunking import Chunk, chunk_documents
from audit_pipeline.vault.documents import VaultScan, scan_vault

VAULT_LOG = logging.getLogger("audit_pipeline.vault")


@dataclass(frozen=True)
class IndexState:
    """What downstream assets need to find the index: where it is and which version."""

    lancedb_path: str
    table_name: str
    table_version: int
    chunks: int
    vault_hash: str


@asset(
    group_name="vault",
    kinds={"python", "duckdb"},
    description="Trusted documents read from the vault directory (Markdown and text as is; "
    "PDF, HTML and DOCX converted to Markdown-like text, a PDF with its page map). Unreadable, "
    "binary, empty, oversized, damaged, encrypted and image-only files are skipped with a "
    "warning; a PDF that lost more than 10 % of its text as running headers and footers is "
    "indexed with a warning.",
)
def vault_documents(
    context: AssetExecutionContext,
    settings: AuditResource,
    warehouse: WarehouseResource,
) -> Output[VaultScan]:
    config = settings.config
    scan = scan_vault(
        config.vault_path,
        config.vault.include,
        config.vault.max_file_bytes,
        config.vault.follow_external_symlinks,
    )
    for skipped in scan.skipped:
        context.log.warning(f"skipped vault file {skipped.path}: {skipped.reason}")
        # The engine log reaches the CLI's JSON log file as well: not only DuckDB.
        log_event(
            VAULT_LOG,
            "vault_file_skipped",
            level=logging.WARNING,
            path=skipped.path,
            reason=skipped.reason,
        )
    dropped = [{"path": d.doc_id, "reason": d.dropped_warning} for d in scan.text_dropped]
    for item in dropped:
        context.log.warning(f"vault file {item['path']}: {item['reason']}")
        log_event(
            VAULT_LOG,
            "vault_text_dropped",
            level=logging.WARNING,
            path=item["path"],
            reason=item["reason"],
        )
    write_vault_documents(warehouse.get(), scan)
    preview = [
        {"document": d.doc_id, "title": d.title, "bytes": d.size_bytes, "hash": d.content_hash[:12]}
        for d in scan.documents
    ]
    return Output(
        scan,
        metadata={
            "documents": len(scan.documents),
            "skipped": len(scan.skipped),
            "skipped_files": MetadataValue.json(
                [{"path": s.path, "reason": s.reason} for s in scan.skipped]
            ),
            "text_dropped": MetadataValue.json(dropped),
            "vault_hash": scan.state_hash,
            "vault_path": str(config.vault_path),
            "preview": MetadataValue.md(
                markdown_table(preview[:50], ["document", "title", "bytes", "hash"])
            ),
        },
    )


@asset(
    group_name="vault",
    kinds={"python", "duckdb"},
    description="Heading-aware chunks of the vault documents with exact character offsets.",
)
def vault_chunks(
    settings: AuditResource,
    warehouse: WarehouseResource,
    vault_documents: VaultScan,
) -> Output[list[Chunk]]:
    config = settings.config
    chunks = chunk_documents(
        vault_documents.documents, config.chunking.target_words, config.chunking.overlap_words
    )
    write_vault_chunks(warehouse.get(), chunks)
    words = [chunk.word_count for chunk in chunks]
    preview = [
        {"document": c.doc_id, "section": c.section, "words": c.word_count} for c in chunks[:30]
    ]
    return Output(
        chunks,
        metadata={
            "chunks": len(chunks),
            "mean_words": round(sum(words) / len(words), 1) if words else 0.0,
            "max_words": max(words, default=0),
            "preview": MetadataValue.md(markdown_table(preview, ["document", "section", "words"])),
        },
    )


@asset(
    group_name="index",
    kinds={"lancedb"},
    description="LanceDB table of chunk text, metadata and all-MiniLM-L6-v2 embeddings with a "
    "native full-text index. Only new or changed chunks are embedded.",
)
def vault_index(
    context: AssetExecutionContext,
    index: VaultIndexResource,
    vault_chunks: list[Chunk],
    vault_documents: VaultScan,
) -> Output[IndexState]:
    lance = index.index()
    report = lance.sync(vault_chunks)
    context.log.info(
        f"vault index: {report.embedded} chunks embedded, {report.reused} reused, "
        f"{report.deleted} deleted"
    )
    state = IndexState(
        lancedb_path=str(lance.path),
        table_name=lance.table_name,
        table_version=report.table_version,
        chunks=report.total,
        vault_hash=vault_documents.state_hash,
    )
    return Output(
        state,
        metadata={
            "chunks": report.total,
            "embedded": report.embedded,
            "reused": report.reused,
            "metadata_rewritten": report.rewritten,
            "deleted": report.deleted,
            "table_version": report.table_version,
            "lancedb_path": MetadataValue.path(str(lance.path)),
        },
    )


@asset_check(asset=vault_index, description="The index holds exactly the current chunks.")
def vault_index_matches_chunks(
    index: VaultIndexResource, vault_index: IndexState
) -> AssetCheckResult:
    indexed = index.index().count()
    return AssetCheckResult(
        passed=indexed == vault_index.chunks,
        metadata={"indexed": indexed, "chunks": vault_index.chunks},
    )


@asset_check(
    asset=vault_documents, description="Warns when vault files were skipped as unreadable."
)
def vault_files_readable(vault_documents: VaultScan) -> AssetCheckResult:
    return AssetCheckResult(
        passed=not vault_documents.skipped,
        severity=AssetCheckSeverity.WARN,
        metadata={
            "skipped": len(vault_documents.skipped),
            "files": MetadataValue.md(
                markdown_table(
                    [{"path": s.path, "reason": s.reason} for s in vault_documents.skipped],
                    ["path", "reason"],
                )
            ),
        },
    )


VAULT_ASSETS = [vault_documents, vault_chunks, vault_index]
VAULT_CHECKS = [vault_index_matches_chunks, vault_files_readable]
