from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from audit_pipeline.warehouse.migrations import LATEST_VERSION, MIGRATIONS
from audit_pipeline.warehouse.store import Warehouse, WarehouseError


def _audit(audit_id: str, status: str = "running") -> dict[str, object]:
    return {"audit_id": audit_id, "started_at": "2026-11-02T08:00:00Z", "status": status}


def test_migrations_are_recorded_and_applied_once(tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    assert warehouse.migrate() == LATEST_VERSION
    assert warehouse.migrate() == LATEST_VERSION
    versions = warehouse.query("SELECT version FROM schema_migrations ORDER BY version")
    # Every migration once, in order (a number may be left free for a branch in flight).
    assert versions["version"].tolist() == [m.version for m in MIGRATIONS]
    assert [m.version for m in MIGRATIONS] == sorted({m.version for m in MIGRATIONS})


def test_migrate_keeps_existing_rows(tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    warehouse.migrate()
    warehouse.replace("audits", [_audit("a1")], {"audit_id": "a1"})
    warehouse.migrate()
    assert warehouse.scalar("SELECT count(*) FROM audits") == 1


def test_replace_touches_only_the_matching_rows(tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    warehouse.migrate()
    warehouse.replace("audits", [_audit("a1")], {"audit_id": "a1"})
    warehouse.replace("audits", [_audit("a2")], {"audit_id": "a2"})
    warehouse.replace("audits", [_audit("a1", "finished")], {"audit_id": "a1"})
    rows = warehouse.query("SELECT audit_id, status FROM audits ORDER BY audit_id")
    assert rows.values.tolist() == [["a1", "finished"], ["a2", "running"]]


def test_failed_write_leaves_previous_rows_intact(tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    warehouse.migrate()
    warehouse.replace("audits", [_audit("a1")], {"audit_id": "a1"})
    bad = [_audit("a1", "finished"), {"audit_id": "a1", "started_at": None, "status": "x"}]
    with pytest.raises(WarehouseError, match=r"write to .* failed"):
        warehouse.replace("audits", bad, {"audit_id": "a1"})  # NOT NULL violation mid-write
    assert warehouse.query("SELECT status FROM audits")["status"].tolist() == ["running"]


def test_replace_many_is_one_transaction(tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    warehouse.migrate()
    warehouse.replace("audits", [_audit("a1")], {"audit_id": "a1"})
    with pytest.raises(WarehouseError):
        warehouse.replace_many(
            [
                ("audits", [_audit("a1", "finished")], {"audit_id": "a1"}),
                ("vault_chunks", [{"chunk_id": "c"}], None),  # missing NOT NULL columns
            ]
        )
    assert warehouse.query("SELECT status FROM audits")["status"].tolist() == ["running"]


def test_writer_waits_for_a_lock_held_by_another_connection_config(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    Warehouse(path).migrate()
    impatient = Warehouse(path, lock_timeout_s=0.2)
    holder = duckdb.connect(str(path), read_only=True)  # same process: conflicting config
    try:
        with pytest.raises(WarehouseError):
            impatient.replace("audits", [_audit("a1")], {"audit_id": "a1"})
    finally:
        holder.close()
    impatient.replace("audits", [_audit("a1")], {"audit_id": "a1"})
    assert impatient.scalar("SELECT count(*) FROM audits") == 1


def test_unwritable_location_gives_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the warehouse directory should be")
    with pytest.raises(WarehouseError, match="cannot create the warehouse directory"):
        Warehouse(blocker / "w.duckdb").migrate()


def test_reads_inside_reading_share_one_connection_and_writes_wait_for_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    warehouse.migrate()
    warehouse.replace("audits", [_audit("a1")], {"audit_id": "a1"})
    opened: list[bool] = []
    real_open = Warehouse._open

    def counting_open(self: Warehouse, read_only: bool) -> duckdb.DuckDBPyConnection:
        opened.append(read_only)
        return real_open(self, read_only)

    monkeypatch.setattr(Warehouse, "_open", counting_open)
    with warehouse.reading():
        assert warehouse.scalar("SELECT count(*) FROM audits") == 1
        with warehouse.reading():  # nested blocks share the outer connection
            assert warehouse.query("SELECT status FROM audits")["status"].tolist() == ["running"]
        with pytest.raises(WarehouseError, match="write inside"):
            warehouse.replace("audits", [_audit("a1", "finished")], {"audit_id": "a1"})
    assert opened == [True]
    warehouse.replace("audits", [_audit("a1", "finished")], {"audit_id": "a1"})
    assert warehouse.query("SELECT status FROM audits")["status"].tolist() == ["finished"]
