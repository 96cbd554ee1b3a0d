"""Re-verifying only what a vault change touches, and stale facts (issue 16, item 2).

A small vault of three policies, recorded answers about each, a full audit, then one edited
document: the ``reverify`` job (what the vault sensor runs) must verify again only the answers
whose evidence changed, keep every other verdict row as it was (recorded as carried over), and
label the answer that repeats the old value of the changed fact ``stale``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from dagster import DagsterInstance

from audit_pipeline.config import load_config
from audit_pipeline.defs.graph import build_definitions
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.policy_workspace import write_policy_workspace

pytestmark = pytest.mark.slow

VERDICT_COLUMNS = ["claim_id", "label", "probability", "justification", "verdict_key"]


def _verdicts(warehouse: Warehouse, audit_id: str) -> pd.DataFrame:
    return warehouse.query(
        "SELECT c.prompt_id, v.* FROM verdicts v JOIN claims c USING (audit_id, claim_id) "
        "WHERE v.audit_id = ? ORDER BY v.claim_id",
        [audit_id],
    )


def _metadata(result: object, asset: str) -> dict[str, object]:
    events = result.asset_materializations_for_node(asset)  # type: ignore[attr-defined]
    return {key: value.value for key, value in events[-1].metadata.items()}


# Two batches: the same carry-over and staleness through the batched graph (plan, one
# verification step per batch of prompts, one writer), run in-process here.
@pytest.mark.parametrize("batches", [1, 2])
def test_a_vault_edit_reverifies_only_the_answers_it_touches(tmp_path: Path, batches: int) -> None:
    config_path = write_policy_workspace(tmp_path, batches=batches)
    defs = build_definitions(config_path)
    (tmp_path / "dagster").mkdir()
    instance = DagsterInstance.local_temp(str(tmp_path / "dagster"))
    full = defs.resolve_job_def("full_audit").execute_in_process(
        partition_key="recorded", instance=instance
    )
    assert full.success
    assert _metadata(full, "verdicts")["carried_over"] == 0
    warehouse = Warehouse(load_config(config_path).duckdb_path)
    audit_id = warehouse.scalar("SELECT audit_id FROM audits")
    before = _verdicts(warehouse, audit_id)
    retained = before[before.prompt_id == "RET-1"]
    assert list(retained.label) == ["supported"]
    assert before.carried_from.isna().all() and before.vault_state.notna().all()

    retention = tmp_path / "vault" / "retention.md"
    retention.write_text(retention.read_text().replace("90 days", "180 days"))
    again = defs.resolve_job_def("reverify").execute_in_process(
        partition_key="recorded", instance=instance
    )
    assert again.success
    after = _verdicts(warehouse, audit_id)
    metadata = _metadata(again, "verdicts")
    assert metadata["verified_now"] == 1  # the one claim whose evidence changed
    assert metadata["carried_over"] == len(before) - 1

    others_before = before[before.prompt_id != "RET-1"].set_index("claim_id")
    others_after = after[after.prompt_id != "RET-1"].set_index("claim_id")
    columns = [c for c in VERDICT_COLUMNS if c != "claim_id"] + ["vault_state"]
    pd.testing.assert_frame_equal(others_after[columns], others_before[columns])
    assert (others_after.carried_from == audit_id).all()

    stale = after[after.prompt_id == "RET-1"].iloc[0]
    assert stale.label == "stale"
    assert stale.carried_from is None or pd.isna(stale.carried_from)
    assert stale.vault_state != retained.iloc[0].vault_state
    view = warehouse.query("SELECT * FROM v_stale_claims WHERE audit_id = ?", [audit_id])
    assert len(view) == 1
    assert "90 days" in view.superseded_text[0] and "180 days" in view.evidence_text[0]
    risk = warehouse.scalar(
        "SELECT stale FROM risk_scores WHERE audit_id = ? AND scope = 'audit'", [audit_id]
    )
    assert risk == 1
    report = again.output_for_node("audit_report")
    html = Path(report.html).read_text()
    assert 'class="tag stale"' in html and "What the vault said before the change" in html
    assert "90 days" in html and "180 days" in html


def test_an_unchanged_rerun_carries_every_verdict_over(tmp_path: Path) -> None:
    config_path = write_policy_workspace(tmp_path)
    defs = build_definitions(config_path)
    (tmp_path / "dagster").mkdir()
    instance = DagsterInstance.local_temp(str(tmp_path / "dagster"))
    job = defs.resolve_job_def("full_audit")
    first = job.execute_in_process(partition_key="recorded", instance=instance)
    second = job.execute_in_process(partition_key="recorded", instance=instance)
    assert first.success and second.success
    warehouse = Warehouse(load_config(config_path).duckdb_path)
    first_id, second_id = warehouse.query("SELECT audit_id FROM audits ORDER BY started_at")[
        "audit_id"
    ]
    assert _metadata(second, "verdicts")["verified_now"] == 0
    old, new = _verdicts(warehouse, first_id), _verdicts(warehouse, second_id)
    pd.testing.assert_frame_equal(
        new[VERDICT_COLUMNS].reset_index(drop=True), old[VERDICT_COLUMNS].reset_index(drop=True)
    )
    assert (new.carried_from == first_id).all()
    # The second audit spent nothing on verification: no judge calls are carried with it.
    assert (new.judge_calls == 0).all()
