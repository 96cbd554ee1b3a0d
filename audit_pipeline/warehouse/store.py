"""The DuckDB warehouse: history of every audit, written in transactions.

DuckDB lets one process at a time hold a database file for writing, and a process with a
read-only connection open keeps every writer out. Two rules follow:

- Pipeline connections are short-lived and opening one retries while another process holds
  the file, so two audits writing at once take turns instead of failing.
- Readers (notebooks, BI tools, ``duckdb -readonly``) open the **read snapshot**
  (``audit.snapshot.duckdb`` next to the warehouse), never the live file. After every committed
  write the pipeline checkpoints and publishes a fresh copy with an atomic rename: an analyst's
  open connection keeps reading the copy it opened (the old file stays valid until closed), a
  new connection sees the latest results, and no reader can ever block an audit.

Every write is one transaction that first deletes the rows it is about to replace (the same
audit's rows of the same stage), so re-materialising a stage is idempotent, and a failed write
rolls back and leaves the previous results as they were.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeAlias

import duckdb
import pandas as pd
import pyarrow as pa

from audit_pipeline.warehouse.migrations import MIGRATIONS, Migration

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LOCK_MARKERS = ("could not set lock", "conflicting lock", "database is locked")


class WarehouseError(RuntimeError):
    """A warehouse operation failed; earlier results are untouched."""


Rows: TypeAlias = Sequence[Mapping[str, Any]] | pd.DataFrame | pa.Table


def _identifier(name: str) -> str:
    if not _IDENTIFIER.match(name):
        raise ValueError(f"not a valid SQL identifier: {name!r}")
    return name


def or_none(value: Any) -> Any:
    """A value read back through pandas, with its missing-value markers (NaN, NA) as None."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and value != value:  # NaN
        return None
    return value


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back if a transaction is still open (a failed COMMIT may already have ended it);
    the original error is the one worth reporting."""
    with contextlib.suppress(duckdb.Error):
        con.execute("ROLLBACK")


def _as_arrow(rows: Rows) -> pa.Table:
    if isinstance(rows, pa.Table):
        return rows
    if isinstance(rows, pd.DataFrame):
        return pa.Table.from_pandas(rows, preserve_index=False)
    return pa.Table.from_pylist([dict(row) for row in rows])


class Warehouse:
    """A DuckDB file holding the audit schema; safe to create from any process."""

    def __init__(self, path: str | Path, lock_timeout_s: float = 60.0):
        self.path = Path(path)
        self.lock_timeout_s = lock_timeout_s
        self._held = threading.local()  # this thread's connection inside ``reading()``

    def __getstate__(self) -> dict[str, Any]:  # a thread-local does not pickle
        return {"path": self.path, "lock_timeout_s": self.lock_timeout_s}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.path = state["path"]
        self.lock_timeout_s = state["lock_timeout_s"]
        self._held = threading.local()

    @property
    def snapshot_path(self) -> Path:
        """The read copy analysts open (``audit.duckdb`` -> ``audit.snapshot.duckdb``)."""
        return self.path.with_name(f"{self.path.stem}.snapshot{self.path.suffix}")

    def _publish_snapshot(self, con: duckdb.DuckDBPyConnection) -> None:
        """Copy the checkpointed file while our write lock keeps other writers out."""
        con.execute("CHECKPOINT")
        temporary = self.snapshot_path.with_name(f".{self.snapshot_path.name}.{os.getpid()}.tmp")
        try:
            shutil.copyfile(self.path, temporary)
            os.replace(temporary, self.snapshot_path)
        except OSError as error:
            temporary.unlink(missing_ok=True)
            raise WarehouseError(
                f"results were saved, but the read snapshot {self.snapshot_path} could not be "
                f"refreshed: {error.strerror}"
            ) from error

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Serve every read inside the block from one read-only connection.

        Opening a DuckDB database costs about 12 ms of start-up whatever its size, and a stage
        that reads four tables in a row paid it four times. The connection keeps other
        processes' writers out while it is open, so the block wraps a run of reads, never slow
        work, and it must not write (DuckDB refuses a writer beside a reader in one process).
        """
        if getattr(self._held, "connection", None) is not None:
            yield  # nested: the outer block's connection serves
            return
        with self.connect(read_only=True) as connection:
            self._held.connection = connection
            try:
                yield
            finally:
                self._held.connection = None

    @contextmanager
    def connect(self, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
        """A connection held only for the duration of the ``with`` block (inside
        ``reading()``, a cursor of the connection it holds)."""
        held: duckdb.DuckDBPyConnection | None = getattr(self._held, "connection", None)
        if held is not None:
            if not read_only:
                raise WarehouseError("a write inside Warehouse.reading(): close the reads first")
            cursor = held.cursor()
            try:
                yield cursor
            finally:
                cursor.close()
            return
        if not read_only:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise WarehouseError(
                    f"cannot create the warehouse directory {self.path.parent}: {error.strerror}"
                ) from error
        elif not self.path.exists():
            raise WarehouseError(f"warehouse not found: {self.path} (run an audit first)")
        connection = self._open(read_only)
        try:
            yield connection
        finally:
            connection.close()

    def _open(self, read_only: bool) -> duckdb.DuckDBPyConnection:
        deadline = time.monotonic() + self.lock_timeout_s
        delay = 0.05
        while True:
            try:
                return duckdb.connect(str(self.path), read_only=read_only)
            except duckdb.Error as error:
                message = str(error).lower()
                if any(marker in message for marker in _LOCK_MARKERS):
                    if time.monotonic() < deadline:
                        time.sleep(delay)
                        delay = min(delay * 2, 1.0)
                        continue
                    raise WarehouseError(
                        f"warehouse {self.path} stayed locked by another process for "
                        f"{self.lock_timeout_s:.0f} s"
                    ) from error
                raise WarehouseError(f"cannot open warehouse {self.path}: {error}") from error

    # -- schema ----------------------------------------------------------------------------

    def migrate(self) -> int:
        """Apply pending migrations; returns the schema version now in place."""
        with self.connect() as con:
            con.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, description VARCHAR NOT NULL,"
                " applied_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp)"
            )
            rows = con.execute("SELECT version FROM schema_migrations").fetchall()
            applied = {row[0] for row in rows}
            for migration in MIGRATIONS:
                if migration.version not in applied:
                    self._apply(con, migration)
            (version,) = con.execute("SELECT max(version) FROM schema_migrations").fetchall()[0]
            if (
                not applied.issuperset(m.version for m in MIGRATIONS)
                or not self.snapshot_path.exists()
            ):
                self._publish_snapshot(con)
            return int(version)

    @staticmethod
    def _apply(con: duckdb.DuckDBPyConnection, migration: Migration) -> None:
        con.execute("BEGIN TRANSACTION")
        try:
            for statement in migration.statements:
                con.execute(statement)
            con.execute(
                "INSERT INTO schema_migrations (version, description) VALUES (?, ?)",
                [migration.version, migration.description],
            )
            con.execute("COMMIT")
        except duckdb.Error as error:
            _rollback(con)
            raise WarehouseError(
                f"migration {migration.version} ({migration.description}) failed: {error}"
            ) from error

    # -- writes ----------------------------------------------------------------------------

    def replace(self, table: str, rows: Rows, where: Mapping[str, Any] | None = None) -> int:
        """Replace the rows of ``table`` matching ``where`` (all rows when None) with ``rows``;
        a list as a value of ``where`` matches any of its items.

        Both steps run in one transaction: readers see the old rows or the new ones, never a
        mix, and a failure leaves the old rows in place.
        """
        return self.replace_many([(table, rows, where)])

    def replace_many(
        self,
        writes: Sequence[tuple[str, Rows, Mapping[str, Any] | None]],
        statements: Sequence[tuple[str, Sequence[Any]]] = (),
        *,
        publish: bool = True,
    ) -> int:
        """Several ``replace`` operations, then ``statements``, in a single transaction.

        Returns the number of rows inserted. ``publish=False`` leaves the read snapshot as it
        was, for a writer that publishes once after a run of writes (``publish_snapshot``).
        """
        inserted = 0
        with self.connect() as con:
            con.execute("BEGIN TRANSACTION")
            try:
                for table, rows, where in writes:
                    inserted += self._replace_in(con, _identifier(table), rows, where)
                for sql, params in statements:
                    con.execute(sql, list(params))
                con.execute("COMMIT")
            except Exception as error:
                _rollback(con)
                if isinstance(error, duckdb.Error):
                    raise WarehouseError(f"write to {self.path} failed: {error}") from error
                raise
            if publish:
                self._publish_snapshot(con)
        return inserted

    def append(self, table: str, rows: Rows) -> int:
        """Insert ``rows`` into ``table`` in one transaction, deleting nothing: for tables
        that only ever grow (``marks``). Returns the number of rows inserted."""
        data = _as_arrow(rows)
        with self.connect() as con:
            con.execute("BEGIN TRANSACTION")
            try:
                if data.num_rows:
                    con.register("_incoming", data)
                    try:
                        con.execute(
                            f"INSERT INTO {_identifier(table)} BY NAME SELECT * FROM _incoming"
                        )
                    finally:
                        con.unregister("_incoming")
                con.execute("COMMIT")
            except duckdb.Error as error:
                _rollback(con)
                raise WarehouseError(f"write to {self.path} failed: {error}") from error
            self._publish_snapshot(con)
        return data.num_rows

    def publish_snapshot(self) -> None:
        """Checkpoint and publish the read snapshot now (after writes that did not)."""
        with self.connect() as con:
            self._publish_snapshot(con)

    @staticmethod
    def _replace_in(
        con: duckdb.DuckDBPyConnection, table: str, rows: Rows, where: Mapping[str, Any] | None
    ) -> int:
        if where:
            clauses: list[str] = []
            params: list[Any] = []
            for column, value in where.items():
                if isinstance(value, list | tuple):  # the rows of several keys at once
                    marks = ", ".join("?" * len(value))
                    clauses.append(f"{_identifier(column)} IN ({marks})" if value else "false")
                    params.extend(value)
                else:
                    clauses.append(f"{_identifier(column)} = ?")
                    params.append(value)
            con.execute(f"DELETE FROM {table} WHERE {' AND '.join(clauses)}", params)
        else:
            con.execute(f"DELETE FROM {table}")
        data = _as_arrow(rows)
        if data.num_rows == 0:
            return 0
        con.register("_incoming", data)
        try:
            con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _incoming")
        finally:
            con.unregister("_incoming")
        return data.num_rows

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> None:
        """Run one statement in its own transaction (for small updates such as audit status)."""
        with self.connect() as con:
            try:
                con.execute(sql, list(params or []))
            except duckdb.Error as error:
                raise WarehouseError(f"statement on {self.path} failed: {error}") from error
            self._publish_snapshot(con)

    # -- reads -----------------------------------------------------------------------------

    def query(self, sql: str, params: Sequence[Any] | None = None) -> pd.DataFrame:
        """Read through a short read-only connection; a missing warehouse is an error."""
        with self.connect(read_only=True) as con:
            try:
                return con.execute(sql, list(params or [])).fetch_df()
            except duckdb.Error as error:
                raise WarehouseError(f"query on {self.path} failed: {error}") from error

    def scalar(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        with self.connect(read_only=True) as con:
            try:
                row = con.execute(sql, list(params or [])).fetchone()
            except duckdb.Error as error:
                raise WarehouseError(f"query on {self.path} failed: {error}") from error
        return row[0] if row else None
