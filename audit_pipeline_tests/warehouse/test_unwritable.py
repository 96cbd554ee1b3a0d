"""A warehouse that cannot be written (read-only, disk full) gives a clear error and keeps
every earlier audit intact."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit_pipeline.warehouse.store import Warehouse

WRITE_AUDIT = textwrap.dedent(
    """
    import sys
    from audit_pipeline.warehouse.store import Warehouse, WarehouseError
    rows = [{"audit_id": f"new-{i}", "started_at": "2026-11-30T08:00:00Z", "status": "running",
             "suite": "x" * 2000} for i in range(2000)]
    try:
        Warehouse(sys.argv[1], lock_timeout_s=2).replace("audits", rows, {"status": "running"})
    except WarehouseError as error:
        print(f"WarehouseError: {error}")
        sys.exit(3)
    print("written")
    """
)


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory another user can traverse (pytest's own tmp dirs are private)."""
    path = Path(tempfile.mkdtemp(prefix="audit-unwritable-"))
    path.chmod(0o755)
    yield path
    for child in sorted(path.rglob("*"), reverse=True):
        child.chmod(0o700)
        child.unlink() if child.is_file() else child.rmdir()
    path.rmdir()


def _warehouse_with_one_audit(directory: Path) -> Warehouse:
    warehouse = Warehouse(directory / "warehouse" / "audit.duckdb")
    warehouse.migrate()
    row = {
        "audit_id": "kept",
        "started_at": "2026-11-23T08:00:00Z",
        "status": "finished",
        "decision": "deploy",
        "risk": 0.05,
    }
    warehouse.replace("audits", [row], {"audit_id": "kept"})
    return warehouse


def _intact(warehouse: Warehouse) -> None:
    rows = warehouse.query("SELECT audit_id, decision FROM audits")
    assert rows.values.tolist() == [["kept", "deploy"]]


def _run(command: list[str], preexec=None) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=preexec,
        cwd=Path(__file__).resolve().parents[2],
    )


def _read_only_command(directory: Path, path: Path) -> list[str]:
    """The writer, run where ``directory`` is read-only.

    Root ignores permission bits, so as root the directory is bind-mounted read-only in a
    private mount namespace of the child (nothing changes for the rest of the machine);
    otherwise plain permissions do.
    """
    python = [sys.executable, "-c", WRITE_AUDIT, str(path)]
    if os.geteuid() != 0:
        directory.chmod(0o555)
        for file in directory.iterdir():
            file.chmod(0o444)
        return python
    if shutil.which("unshare") is None:
        pytest.skip("running as root without unshare: cannot make a read-only directory")
    remount = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    return ["unshare", "-m", "sh", "-c", remount, str(directory), *python]


def test_read_only_warehouse_is_a_clear_error(shared_dir: Path) -> None:
    warehouse = _warehouse_with_one_audit(shared_dir)
    result = _run(_read_only_command(warehouse.path.parent, warehouse.path))
    if "mount" in result.stderr and "permission denied" in result.stderr.lower():
        pytest.skip(f"cannot mount read-only here: {result.stderr.strip()}")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "WarehouseError: cannot open warehouse" in result.stdout
    assert "read-only" in result.stdout.lower() or "permission denied" in result.stdout.lower()
    warehouse.path.parent.chmod(0o755)
    _intact(warehouse)


def test_disk_full_during_a_write_is_a_clear_error(shared_dir: Path) -> None:
    warehouse = _warehouse_with_one_audit(shared_dir)
    limit = warehouse.path.stat().st_size + 256 * 1024

    def small_disk() -> None:  # files may not grow past the limit: writes fail with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    result = _run([sys.executable, "-c", WRITE_AUDIT, str(warehouse.path)], small_disk)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "WarehouseError" in result.stdout
    _intact(warehouse)
    assert warehouse.scalar("SELECT count(*) FROM audits WHERE audit_id LIKE 'new-%'") == 0
