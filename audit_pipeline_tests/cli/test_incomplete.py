"""Outages fail closed: an audit that could not verify or get enough answers is
``incomplete`` and exits 2 (or blocks, when configured), never a pass."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.helpers import FAITHFUL_IDS, write_audit_config

pytestmark = pytest.mark.slow

IDS = [a for i in FAITHFUL_IDS[:3] for a in ("--id", i)]


def _closed_port() -> int:
    """A local port nothing listens on: connections are refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def unreachable_judge() -> dict[str, object]:
    return {
        "verifier": "llm",
        "judge": {
            "model": "openai/judge",
            "api_base": f"http://127.0.0.1:{_closed_port()}/v1",
            "api_key_env": "AUDIT_TEST_JUDGE_KEY",
            "timeout_s": 5,
        },
    }


def test_an_unreachable_judge_makes_the_audit_incomplete_and_exit_2(
    tmp_path: Path, sample_index_dir: Path, unreachable_judge: dict[str, object]
) -> None:
    config = write_audit_config(tmp_path, sample_index_dir, detection=unreachable_judge)
    out = tmp_path / "summary.json"
    env = {"AUDIT_TEST_JUDGE_KEY": "not-a-real-key"}
    result = cli(config, "run", "--no-progress", *IDS, "--json", str(out), env=env)

    assert result.returncode == 2, result.stderr
    assert "DECISION: INCOMPLETE" in result.stdout
    assert "claims could not be verified" in result.stdout
    assert result.stderr.strip().splitlines()[-1].startswith("error: audit ")
    assert "Traceback" not in result.stderr
    summary = json.loads(out.read_text())  # the summary is still written: nothing is lost
    assert summary["decision"] == "incomplete"
    assert any("could not be verified" in why for why in summary["incomplete"])
    gate = next(g for g in summary["gates"] if g["name"] == "completeness")
    assert gate["status"] == "error"
    warehouse = Warehouse(tmp_path / "warehouse" / "audit.duckdb")
    row = warehouse.query("SELECT status, decision FROM audits").iloc[0]
    assert row["status"] == "finished" and row["decision"] == "incomplete"

    # --report-only does not turn "nothing was decided" into a pass either.
    shown = cli(config, "run", "--no-progress", *IDS, "--report-only", env=env)
    assert shown.returncode == 2


def test_a_target_that_is_down_makes_the_audit_incomplete(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    config = write_audit_config(
        tmp_path,
        sample_index_dir,
        targets={
            "bot": {
                "type": "http",
                "url": f"http://127.0.0.1:{_closed_port()}/chat",
                "answer_path": "$.answer",
                "max_retries": 0,
            }
        },
        defaults={"suite": "security-questionnaire", "target": "bot"},
    )
    result = cli(config, "run", "--no-progress", *IDS)
    assert result.returncode == 2, result.stderr
    assert "3 of 3 turns got no answer" in result.stdout
