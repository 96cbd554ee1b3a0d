"""The warehouse file's integrity and the free disk an audit needs, checked before it starts.

A truncated warehouse (a copy cut short, a disk that filled during a write) opens: DuckDB reads
the blocks it needs when it needs them. So an audit used to write its row into the damaged
file and die later in a DuckDB FATAL that named no file; and a full disk was found by the
first write, half-way through an audit. Here the file's own bookkeeping is compared with its
size (``pragma_database_size``: the file must hold every block the database says it has), and
the folders the audit writes are checked for room: the warehouse is copied to its read snapshot
after every write, so its folder needs the file's size again, plus room for the new rows.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from audit_pipeline.commands.usage_error import UsageError

# DuckDB's file header: a main header and two database headers of 4 KiB each.
HEADER_BYTES = 3 * 4096
# Room an audit needs beyond the warehouse's snapshot copy: its rows, the index's new
# version, cached answers, reports and the run's event log (the sample audit writes ~10 MiB).
MIN_FREE_BYTES = 64 << 20


def check_warehouse_file(path: Path) -> None:
    """``UsageError`` naming ``path`` when it is not a whole DuckDB file."""
    import duckdb

    if not path.exists():
        return
    try:
        with duckdb.connect(str(path), read_only=True) as con:
            row = con.execute(
                "SELECT block_size, total_blocks FROM pragma_database_size() LIMIT 1"
            ).fetchone()
    except duckdb.Error as error:
        message = str(error).splitlines()[0]
        if "lock" in message.lower():  # another writer holds it: the lock wait reports that
            return
        raise UsageError(
            f"the warehouse {path} cannot be opened as a DuckDB file ({message}): restore it "
            "from a backup or its read snapshot, or point storage.duckdb_path elsewhere"
        ) from None
    if row is None:
        return
    block_size, total_blocks = int(row[0]), int(row[1])
    expected = HEADER_BYTES + block_size * total_blocks
    size = path.stat().st_size
    if size < expected:
        raise UsageError(
            f"the warehouse {path} is damaged: it is {size:,} bytes, but its {total_blocks} "
            f"blocks need {expected:,} (the file was cut short); restore it from a backup or "
            f"its read snapshot ({path.with_name(f'{path.stem}.snapshot{path.suffix}')}), or "
            "point storage.duckdb_path elsewhere"
        )


def _existing(folder: Path) -> Path:
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def check_free_space(folders: dict[str, Path], warehouse: Path) -> None:
    """``UsageError`` naming the folder when its file system lacks the room the audit needs:
    ``MIN_FREE_BYTES`` each, and the warehouse's folder the warehouse's size again (the
    snapshot copy) on top."""
    size = warehouse.stat().st_size if warehouse.exists() else 0
    for what, folder in folders.items():
        needed = MIN_FREE_BYTES + (size if folder == warehouse.parent else 0)
        free = shutil.disk_usage(_existing(folder)).free
        if free < needed:
            raise UsageError(
                f"{what} {folder} has {free / (1 << 20):.1f} MiB free on its disk; an audit "
                f"needs about {needed / (1 << 20):.0f} MiB there (new rows, the index, the "
                "warehouse's read snapshot): free some space or point it elsewhere"
            )
