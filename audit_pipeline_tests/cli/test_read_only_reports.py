"""A reports folder that cannot be written does not hide a committed decision."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.cli.helpers import cli_with_read_only
from audit_pipeline_tests.helpers import HALLUCINATED_IDS, write_audit_config

pytestmark = pytest.mark.slow


def test_the_decision_and_gates_are_printed_and_the_exit_code_follows_them(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    config = write_audit_config(tmp_path, sample_index_dir)
    out = tmp_path / "summary.json"
    ids = [a for i in HALLUCINATED_IDS for a in ("--id", i)]
    result = cli_with_read_only(
        tmp_path / "reports", config, "run", "--no-progress", *ids, "--json", str(out)
    )
    if result is None:
        pytest.skip("cannot make a read-only folder here")

    assert result.returncode == 1, result.stderr  # the hallucinations block, as without the bug
    assert "DECISION: BLOCK" in result.stdout
    assert "hallucinations   ERROR" in result.stdout
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1 and "audit_report" in warnings[0]
    assert "audit-pipeline report " in warnings[0]
    assert "Traceback" not in result.stderr
    summary = json.loads(out.read_text())
    assert summary["decision"] == "block"
    row = Warehouse(tmp_path / "warehouse" / "audit.duckdb").query(
        "SELECT status, decision FROM audits"
    )
    assert row.values.tolist() == [["finished", "block"]]
    assert list((tmp_path / "reports").iterdir()) == []
