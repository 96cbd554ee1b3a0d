"""What the tests of ``detection.batches`` compare: the claims, evidence and verdicts an audit
wrote, and the process each step ran in. Shared by the multiprocess test (``test_scale_out``)
and the cluster executors' tests (``test_cluster_executors``): any executor must write the rows
of one batch in one process.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from dagster import DagsterInstance

from audit_pipeline.config import load_config
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.policy_workspace import ANSWERS

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
BATCH_STEPS = [
    "evidence.evidence_batch[batch_0]",
    "evidence.evidence_batch[batch_1]",
    "verdicts.verdict_batch[batch_0]",
    "verdicts.verdict_batch[batch_1]",
]


def rows(config_path: Path, table: str) -> pd.DataFrame:
    keys, columns = TABLES[table]
    warehouse = Warehouse(load_config(config_path).duckdb_path)
    frame = warehouse.query(f"SELECT {', '.join(keys + columns)} FROM {table}")
    return frame.sort_values(keys).reset_index(drop=True)


def assert_rows_of_one_process(single: Path, batched: Path) -> None:
    """The policy workspace audited in batches (``batched``) wrote the rows of one batch in
    one process (``single``); only the vector scores may differ in their last digits (the
    claims are embedded in other batches)."""
    for table in TABLES:
        one, two = rows(single, table), rows(batched, table)
        assert len(one) > 0
        pd.testing.assert_frame_equal(two, one, check_exact=False, rtol=1e-6)
    verdicts = rows(batched, "verdicts")
    assert set(verdicts.prompt_id) == set(ANSWERS)
    assert verdicts.carried_from.isna().all()  # verified in the batches, none carried over


def step_processes(config_path: Path) -> dict[str, int]:
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
