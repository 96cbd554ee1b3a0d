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

import pandas as pd
from dagster import DagsterInstance, Definitions, GraphDefinition

from audit_pipeline.commands.run_audit import RunOptions, run_audit
from audit_pipeline.config import load_config
from audit_pipeline.defs.graph import build_definitions
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.policy_workspace import ANSWERS, write_policy_workspace

# Row identity and content; audit ids, timestamps and the vault state (a hash that includes
# the workspace's own paths) differ between the two workspaces by construction.
TABLES = {
    "claims": (["claim_id"], ["prompt_id", "turn", "text", "start_char", "end_char", "kind"]),
    "evidence": (
        ["claim_id", "rank"],
        [
            "chunk_id",
            "document",
            "section",
            "text",
            "vector_score",
            "bm25_score",
            "fused_score",
            "source",
            "fallback_mode",
        ],
    ),
    "verdicts": (
        ["claim_id"],
        [
            "prompt_id",
            "turn",
            "label",
            "probability",
            "justification",
            "supporting_chunk_ids",
            "verifier",
            "verifier_version",
            "decided_by",
            "judge_calls",
            "error_spans",
            "verdict_key",
            "carried_from",
        ],
    ),
}


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


def _rows(config_path: Path, table: str) -> pd.DataFrame:
    keys, columns = TABLES[table]
    warehouse = Warehouse(load_config(config_path).duckdb_path)
    frame = warehouse.query(f"SELECT {', '.join(keys + columns)} FROM {table}")
    return frame.sort_values(keys).reset_index(drop=True)


def _step_processes(config_path: Path) -> dict[str, int]:
    """Step key -> the process it ran in, from the CLI instance's record of its last run."""
    home = load_config(config_path).duckdb_path.parent / "dagster_home"
    instance = DagsterInstance.from_config(str(home))
    (run,) = instance.get_runs(limit=1)
    return {
        entry.step_key: entry.dagster_event.pid
        for entry in instance.all_logs(run.run_id)
        if entry.dagster_event is not None
        and entry.step_key is not None
        and entry.dagster_event.event_type_value == "STEP_START"
        and entry.dagster_event.pid is not None
    }


def test_two_batches_in_two_processes_write_the_rows_of_one(tmp_path: Path) -> None:
    single = write_policy_workspace(tmp_path / "single")
    batched = write_policy_workspace(tmp_path / "batched", batches=2)
    first = run_audit(single, load_config(single), RunOptions(target="recorded"))
    assert first.success, first.errors
    assert first.outcome is not None
    summary = tmp_path / "batched.json"
    second = cli(batched, "run", "--processes", "2", "--report-only", "--json", str(summary))
    assert second.returncode == 0, second.stderr
    assert second.stderr.strip() == ""  # as quiet as a run in one process
    assert json.loads(summary.read_text())["decision"] == first.outcome.decision

    # Each batch ran as its own step in its own process, apart from the planning step.
    steps = _step_processes(batched)
    batch_steps = sorted(step for step in steps if "_batch[" in step)
    assert batch_steps == [
        "evidence.evidence_batch[batch_0]",
        "evidence.evidence_batch[batch_1]",
        "verdicts.verdict_batch[batch_0]",
        "verdicts.verdict_batch[batch_1]",
    ]
    assert len({steps[step] for step in batch_steps}) == 4
    assert steps["verdicts.verdict_writer"] not in {steps[step] for step in batch_steps}

    for table in TABLES:
        one, two = _rows(single, table), _rows(batched, table)
        assert len(one) > 0
        pd.testing.assert_frame_equal(two, one, check_exact=False, rtol=1e-6)
    verdicts = _rows(batched, "verdicts")
    assert set(verdicts.prompt_id) == set(ANSWERS)
    assert verdicts.carried_from.isna().all()  # verified in the batches, none carried over
