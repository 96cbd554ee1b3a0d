"""New marks re-score the affected audit in Dagster (issue 32, item 5): the marks sensor asks
for a ``rescore`` run of the target whose latest audit holds the marked claim; the run applies
the mark without verifying anything (every verdict carried over), and the audit's gates,
decision and report change; the run shows under its job with the marks asset it read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from dagster import DagsterInstance, SensorResult, build_sensor_context

from audit_pipeline.config import load_config
from audit_pipeline.defs.graph import build_definitions
from audit_pipeline.runs.marking import MarkRequest, record_marks
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.policy_workspace import write_policy_workspace

pytestmark = pytest.mark.slow


def _metadata(result: object, asset: str) -> dict[str, object]:
    events = result.asset_materializations_for_node(asset)  # type: ignore[attr-defined]
    return {key: value.value for key, value in events[-1].metadata.items()}


def test_a_new_mark_rescores_the_latest_audit_without_verifying(tmp_path: Path) -> None:
    config_path = write_policy_workspace(tmp_path)
    defs = build_definitions(config_path)
    (tmp_path / "dagster").mkdir()
    instance = DagsterInstance.local_temp(str(tmp_path / "dagster"))
    audit = defs.resolve_job_def("full_audit").execute_in_process(
        partition_key="recorded", instance=instance
    )
    assert audit.success
    store = Warehouse(load_config(config_path).duckdb_path)
    audit_id = store.scalar("SELECT audit_id FROM audits")
    assert store.scalar("SELECT decision FROM audits") == "block"  # ENC-2, contradicted
    sensor = defs.get_sensor_def("marks_sensor")

    quiet = sensor(build_sensor_context(instance=instance, definitions=defs))
    assert not isinstance(quiet, SensorResult) or not quiet.run_requests

    claim = store.scalar(
        "SELECT claim_id FROM claims WHERE audit_id = ? AND prompt_id = 'ENC-2'", [audit_id]
    )
    record_marks(store, [MarkRequest(audit_id, claim, "supported", "a false alarm", "kim")], "cli")
    result = sensor(build_sensor_context(instance=instance, definitions=defs))
    assert isinstance(result, SensorResult)
    assert [
        (r.partition_key, r.tags["audit-pipeline/rescored-audit"]) for r in result.run_requests
    ] == [("recorded", audit_id)]
    assert result.cursor == "1"
    again = sensor(build_sensor_context(instance=instance, cursor=result.cursor, definitions=defs))
    assert not isinstance(again, SensorResult) or not again.run_requests  # marks seen once

    rescore = defs.resolve_job_def("rescore").execute_in_process(
        partition_key="recorded", instance=instance, tags=result.run_requests[0].tags
    )
    assert rescore.success
    verdicts = _metadata(rescore, "verdicts")
    assert (verdicts["verified_now"], verdicts["carried_over"]) == (0, 5)
    assert verdicts["set_by_marks"] == 1
    assert _metadata(rescore, "analyst_marks")["live"] == 1
    # The same audit, re-scored: no hallucination left, the decision is no longer block.
    assert store.scalar("SELECT count(*) FROM audits") == 1
    label, decided = store.query(
        "SELECT label, decided_by FROM verdicts WHERE audit_id = ? AND claim_id = ?",
        [audit_id, claim],
    ).values[0]
    assert (label, decided) == ("supported", "mark")
    assert store.scalar("SELECT decision FROM audits") != "block"
    report = rescore.output_for_node("audit_report")
    assert "1 verdict set by analysts&#x27; marks" in Path(report.html).read_text()
    run = instance.get_run_by_id(rescore.run_id)
    assert run is not None and run.job_name == "rescore"
