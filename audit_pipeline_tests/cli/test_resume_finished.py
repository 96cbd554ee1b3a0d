"""``run --resume`` on a finished audit is refused: history is never rewritten."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.helpers import SAMPLE_REPLAY, write_audit_config

pytestmark = pytest.mark.slow

IDS = ("SOC2-001", "ENC-002")


def _rows(warehouse: Warehouse, audit_id: str) -> dict[str, list[tuple[object, ...]]]:
    tables = {
        "claims": "SELECT claim_id, text FROM claims",
        "assertion_results": "SELECT prompt_id, assertion, passed FROM assertion_results",
        "risk_scores": "SELECT scope, prompt_id, risk FROM risk_scores",
        "audits": "SELECT status, decision, risk, finished_at FROM audits",
    }
    return {
        name: sorted(
            warehouse.query(f"{sql} WHERE audit_id = ?", [audit_id]).itertuples(index=False),
            key=repr,
        )
        for name, sql in tables.items()
    }


def test_resuming_a_finished_audit_exits_2_and_changes_nothing(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    recording = tmp_path / "answers.jsonl"
    recording.write_text(SAMPLE_REPLAY.read_text())
    config = write_audit_config(
        tmp_path,
        sample_index_dir,
        targets={"recorded": {"type": "replay", "path": str(recording)}},
    )
    args = ["run", "--no-progress", *[a for i in IDS for a in ("--id", i)]]
    first = cli(config, *args)
    assert first.returncode in (0, 1), first.stderr
    warehouse = Warehouse(tmp_path / "warehouse" / "audit.duckdb")
    audit_id = warehouse.scalar("SELECT audit_id FROM audits")
    before = _rows(warehouse, audit_id)
    assert before["audits"][0][0] == "finished" and before["claims"]

    # A changed recording would give other claims, assertions and risk if it were replayed.
    recording.write_text(
        '{"prompt_id": "SOC2-001", "response": "We have no SOC 2 report at all."}\n'
        '{"prompt_id": "ENC-002", "response": "Keys are never rotated."}\n'
    )
    resumed = cli(config, *args, "--resume", audit_id)
    assert resumed.returncode == 2
    assert resumed.stderr.strip().splitlines() == [
        f"error: cannot resume audit {audit_id!r}: it is finished, and a finished audit is "
        "never changed; run a new audit instead"
    ]
    assert _rows(warehouse, audit_id) == before
    assert warehouse.scalar("SELECT count(*) FROM audits") == 1

    unknown = cli(config, *args, "--resume", "20990101T000000Z-recorded-00000000")
    assert unknown.returncode == 2
    assert "no such audit of target 'recorded'" in unknown.stderr
    # Nothing left to resume: the latest-unfinished form says so too.
    latest = cli(config, *args, "--resume")
    assert latest.returncode == 2 and "no unfinished audit" in latest.stderr


def test_the_responses_asset_refuses_a_finished_audit_too(audited_config: Path) -> None:
    """The UI and the schedule reach the asset without the CLI's check."""
    from audit_pipeline.commands.run_audit import RunOptions, run_audit
    from audit_pipeline.config import load_config

    config = load_config(audited_config)
    warehouse = Warehouse(config.duckdb_path)
    audit_id = warehouse.scalar("SELECT min(audit_id) FROM audits WHERE status = 'finished'")
    risk = warehouse.scalar("SELECT risk FROM audits WHERE audit_id = ?", [audit_id])
    result = run_audit(
        audited_config, config, RunOptions(target="recorded", resume_audit_id=audit_id)
    )
    assert not result.success
    assert any("a finished audit is never changed" in error for error in result.errors)
    assert warehouse.scalar("SELECT status FROM audits WHERE audit_id = ?", [audit_id]) == (
        "finished"
    )
    assert warehouse.scalar("SELECT risk FROM audits WHERE audit_id = ?", [audit_id]) == risk
