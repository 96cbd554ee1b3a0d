"""The vault assets materialised with Dagster against a temporary warehouse and index."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from dagster import materialize

from audit_pipeline.config import load_config
from audit_pipeline.defs.resources import resources_from_config
from audit_pipeline.defs.vault_index_assets import VAULT_ASSETS, VAULT_CHECKS
from audit_pipeline.vault.chunking import chunk_documents
from audit_pipeline.vault.documents import scan_vault
from audit_pipeline.warehouse.store import Warehouse


def write_config(tmp_path: Path, vault: Path, **overrides: Any) -> Path:
    config = {
        "vault": {"path": str(vault)},
        "storage": {
            "duckdb_path": str(tmp_path / "warehouse" / "audit.duckdb"),
            "lancedb_path": str(tmp_path / "warehouse" / "vault.lance"),
        },
        **overrides,
    }
    path = tmp_path / "audit.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _materialize(config_path: Path):
    return materialize(
        [*VAULT_ASSETS, *VAULT_CHECKS],
        resources=resources_from_config(str(config_path), load_config(config_path)),
        raise_on_error=False,
    )


def _metadata(result, asset: str) -> dict[str, Any]:
    events = [
        e.materialization
        for e in result.get_asset_materialization_events()
        if e.materialization.asset_key.path == [asset]
    ]
    assert len(events) == 1
    return {key: value.value for key, value in events[0].metadata.items()}


@pytest.mark.slow
def test_vault_assets_materialise_incrementally(tmp_path: Path, vault_copy: Path) -> None:
    config_path = write_config(tmp_path, vault_copy)
    expected_chunks = chunk_documents(scan_vault(vault_copy).documents)

    first = _materialize(config_path)
    assert first.success
    documents = {doc.doc_id for doc in scan_vault(vault_copy).documents}
    assert {p.name for p in vault_copy.glob("*.*")} - documents == {"glossary.yaml"}
    assert _metadata(first, "vault_documents")["documents"] == len(documents)
    index_meta = _metadata(first, "vault_index")
    assert index_meta["embedded"] == len(expected_chunks) == index_meta["chunks"]
    assert all(check.passed for check in first.get_asset_check_evaluations())

    warehouse = Warehouse(tmp_path / "warehouse" / "audit.duckdb")
    assert warehouse.scalar("SELECT count(*) FROM vault_chunks") == len(expected_chunks)
    per_doc = warehouse.query("SELECT doc_id, count(*) AS n FROM vault_chunks GROUP BY doc_id")
    assert set(per_doc["doc_id"]) == documents

    second = _materialize(config_path)
    assert second.success
    assert _metadata(second, "vault_index")["embedded"] == 0
    assert _metadata(second, "vault_index")["reused"] == len(expected_chunks)

    # Edit one file throughout: only that file's chunks are embedded again.
    edited = vault_copy / "encryption-standard.md"
    edited.write_text(edited.read_text().replace("Tallyhawk", "Tallyhawk Inc."))
    edited_chunks = [
        c for c in chunk_documents(scan_vault(vault_copy).documents) if c.doc_id == edited.name
    ]
    third = _materialize(config_path)
    meta = _metadata(third, "vault_index")
    changed = sum("Tallyhawk Inc." in c.text for c in edited_chunks)
    assert 0 < changed <= len(edited_chunks)
    assert meta["embedded"] == changed
    assert meta["deleted"] == changed
    assert meta["chunks"] == len(expected_chunks)
    rows = warehouse.query(
        "SELECT doc_id, doc_hash FROM vault_chunks WHERE doc_id = ?", [edited.name]
    )
    assert set(rows["doc_hash"]) == {edited_chunks[0].doc_hash}


def test_skipped_files_warn_and_missing_vault_fails_clearly(
    tmp_path: Path, vault_copy: Path, sample_index_dir: Path
) -> None:
    shutil.copytree(sample_index_dir, tmp_path / "warehouse" / "vault.lance")  # nothing to embed
    (vault_copy / "broken.md").write_bytes(b"\xff\xfe not utf-8 \xc3")
    result = _materialize(write_config(tmp_path, vault_copy))
    assert result.success
    assert _metadata(result, "vault_documents")["skipped"] == 1
    readable = next(
        c for c in result.get_asset_check_evaluations() if c.check_name == "vault_files_readable"
    )
    assert not readable.passed
    assert readable.severity.value == "WARN"

    missing = _materialize(write_config(tmp_path, tmp_path / "nowhere"))
    assert not missing.success
    failure = next(e for e in missing.all_events if e.is_step_failure)
    assert "vault directory not found" in failure.step_failure_data.error.cause.message
