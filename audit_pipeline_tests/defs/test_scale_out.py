"""Scaling the detection stages out (issue 16, item 3): ``detection.batches`` splits evidence and
verification into batches of prompts that Dagster runs as separate steps.

The batched graph must keep the assets' keys and lineage, and two batches run in two processes
(``audit-pipeline run --processes 2``: Dagster's multiprocess executor, the job rebuilt in every
step process) must write the same claims, evidence and verdicts as one batch in one process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from dagster import Definitions, GraphDefinition

from audit_pipeline.commands.run_audit import RunOptions, run_audit
from audit_pipeline.config import load_config
from audit_pipeline.defs.graph import build_definitions
from audit_pipeline_tests.cli.helpers import assert_only_progress_lines, cli_process
from audit_pipeline_tests.defs.batch_rows import (
    BATCH_STEPS,
    assert_rows_of_one_process,
    step_processes,
)
from audit_pipeline_tests.policy_workspace import write_policy_workspace


def _structure(defs: Definitions) -> dict[str, Any]:
    assets = {
        spec.key.to_user_string(): {
            "group": spec.group_name,
            "kinds": sorted(spec.kinds),
            "deps": sorted(dep.asset_key.to_user_string() for dep in spec.deps),
            "partitions": spec.partitions_def,
            "description": spec.description,
        }
        for spec in defs.resolve_all_asset_specs()
    }
    jobs = {
        job.name: sorted(key.to_user_string() for key in job.asset_layer.selected_asset_keys)
        for job in defs.resolve_all_job_defs()
        if not job.name.startswith("__")
    }
    return {"assets": assets, "jobs": jobs}


def test_batches_keep_the_asset_keys_lineage_and_jobs(tmp_path: Path) -> None:
    one = build_definitions(write_policy_workspace(tmp_path / "one"))
    four = build_definitions(write_policy_workspace(tmp_path / "four", batches=4))
    assert _structure(four) == _structure(one)
    # Only the batched assets are graphs of steps: plan, one step per batch, one writer.
    nodes = {node.name for node in four.resolve_job_def("full_audit").graph.node_defs}
    assert {"evidence", "verdicts", "claims"} <= nodes
    evidence = four.resolve_job_def("full_audit").graph.node_named("evidence").definition
    assert isinstance(evidence, GraphDefinition)
    assert sorted(n.name for n in evidence.node_defs) == [
        "evidence_batch",
        "evidence_batches",
        "evidence_writer",
    ]


@pytest.mark.slow
def test_two_batches_in_two_processes_write_the_rows_of_one(tmp_path: Path) -> None:
    single = write_policy_workspace(tmp_path / "single")
    batched = write_policy_workspace(tmp_path / "batched", batches=2)
    first = run_audit(single, load_config(single), RunOptions(target="recorded"))
    assert first.success, first.errors
    assert first.outcome is not None
    summary = tmp_path / "batched.json"
    second = cli_process(
        batched, "run", "--processes", "2", "--report-only", "--json", str(summary)
    )
    assert second.returncode == 0, second.stderr
    assert_only_progress_lines(second.stderr)
    assert json.loads(summary.read_text())["decision"] == first.outcome.decision

    # Each batch ran as its own step in its own process, apart from the planning step.
    steps = step_processes(batched)
    assert sorted(step for step in steps if "_batch[" in step) == BATCH_STEPS
    assert len({steps[step] for step in BATCH_STEPS}) == 4
    assert steps["verdicts.verdict_writer"] not in {steps[step] for step in BATCH_STEPS}
    assert_rows_of_one_process(single, batched)
