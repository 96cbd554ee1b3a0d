"""Scaling the detection stages out (issue 16, item 3): ``detection.batches`` splits evidence and
verification into batches of prompts that Dagster runs as separate steps.

The batched graph must keep the assets' keys and lineage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dagster import Definitions, GraphDefinition

from audit_pipeline.defs.graph import build_definitions
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
