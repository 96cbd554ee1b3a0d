"""An analyst's open connection and a running audit, in two processes, do not disturb each other.

The analyst process holds a read-only connection on the read snapshot for the whole test and
queries it in a loop; the audit process writes twenty times meanwhile. Neither may fail, and a
new analyst connection afterwards sees every write.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from audit_pipeline.warehouse.store import Warehouse

ANALYST = textwrap.dedent(
    """
    import json, sys, time
    import duckdb
    path, stop_file = sys.argv[1], sys.argv[2]
    con = duckdb.connect(path, read_only=True)  # held open for the whole session
    queries, errors, seen = 0, [], set()
    from pathlib import Path
    while not Path(stop_file).exists():
        try:
            seen.add(con.execute("SELECT count(*) FROM audits").fetchone()[0])
            queries += 1
        except Exception as error:  # the test fails on any error
            errors.append(repr(error))
        time.sleep(0.01)
    con.close()
    print(json.dumps({"queries": queries, "errors": errors, "seen": sorted(seen)}))
    """
)

WRITER = textwrap.dedent(
    """
    import sys
    from audit_pipeline.warehouse.store import Warehouse
    warehouse = Warehouse(sys.argv[1], lock_timeout_s=10)
    for i in range(20):
        row = {"audit_id": f"a{i}", "started_at": "2026-11-23T08:00:00Z", "status": "finished"}
        warehouse.replace("audits", [row], {"audit_id": f"a{i}"})
    print("wrote 20")
    """
)


def test_analyst_connection_and_audit_writes_coexist(tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "audit.duckdb")
    warehouse.migrate()
    assert warehouse.snapshot_path.exists()
    stop = tmp_path / "stop"
    analyst = subprocess.Popen(
        [sys.executable, "-c", ANALYST, str(warehouse.snapshot_path), str(stop)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(0.5)  # the analyst has its connection open before the audit writes
        writer = subprocess.run(
            [sys.executable, "-c", WRITER, str(warehouse.path)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert writer.returncode == 0, writer.stderr
        assert writer.stdout.strip() == "wrote 20"
    finally:
        stop.touch()
        out, err = analyst.communicate(timeout=60)
    assert analyst.returncode == 0, err
    report = json.loads(out)
    assert report["errors"] == []
    assert report["queries"] > 10
    assert report["seen"] == [0]  # its open connection kept reading the copy it opened

    fresh = Warehouse(warehouse.snapshot_path)
    assert fresh.scalar("SELECT count(*) FROM audits") == 20  # a new connection sees it all
