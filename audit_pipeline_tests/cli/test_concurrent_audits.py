"""Two real ``audit-pipeline run`` processes on one warehouse and one ``DAGSTER_HOME``.

Dagster used to keep step outputs in one slot per asset partition shared by every run, so the
second audit's outputs replaced the first's half-way: the full audit printed the other audit's
decision and its own stayed ``running``. Each audit must come out whole and correct.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.helpers import REPO_ROOT, write_audit_config

pytestmark = pytest.mark.slow


def _start(config: Path, dagster_home: Path, *args: str) -> subprocess.Popen[str]:
    environment = {**os.environ, "DAGSTER_HOME": str(dagster_home)}
    return subprocess.Popen(
        [sys.executable, "-m", "audit_pipeline.cli", "--config", str(config), "run", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )


def test_two_audits_at_once_each_get_their_own_result(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    config = write_audit_config(tmp_path, sample_index_dir)
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(REPO_ROOT / "dagster_instance.yaml", home / "dagster.yaml")
    full_json, one_json = tmp_path / "full.json", tmp_path / "one.json"

    full = _start(config, home, "--no-progress", "--json", str(full_json))
    time.sleep(1.5)
    one = _start(config, home, "--no-progress", "--id", "IR-002", "--json", str(one_json))
    one_out, one_err = one.communicate(timeout=300)
    full_out, full_err = full.communicate(timeout=300)

    assert one.returncode == 0, one_err
    # The recording answers 12 of the suite's 65 turns: incomplete, however it scored.
    assert full.returncode == 2, full_err
    whole, single = json.loads(full_json.read_text()), json.loads(one_json.read_text())
    assert whole["audit_id"] != single["audit_id"]
    assert whole["summary"]["total"] == 58 and whole["decision"] == "incomplete"
    assert single["summary"]["total"] == 1 and single["decision"] == "deploy"
    assert whole["audit_id"] in full_out and "DECISION: INCOMPLETE" in full_out
    assert single["audit_id"] in one_out and "DECISION: DEPLOY" in one_out

    warehouse = Warehouse(tmp_path / "warehouse" / "audit.duckdb")
    audits = warehouse.query(
        "SELECT audit_id, status, decision, risk, started_at, finished_at FROM audits"
    ).set_index("audit_id")
    assert set(audits.index) == {whole["audit_id"], single["audit_id"]}
    assert (audits["status"] == "finished").all()
    assert audits.loc[whole["audit_id"], "decision"] == "incomplete"
    assert audits.loc[single["audit_id"], "decision"] == "deploy"
    # The two really ran at the same time (otherwise this test would prove nothing).
    first, second = audits.loc[whole["audit_id"]], audits.loc[single["audit_id"]]
    assert second["started_at"] < first["finished_at"]
    responses = warehouse.query("SELECT audit_id, count(*) AS n FROM responses GROUP BY 1")
    counts = dict(zip(responses["audit_id"], responses["n"], strict=True))
    assert counts[single["audit_id"]] == 1 and counts[whole["audit_id"]] > 50
