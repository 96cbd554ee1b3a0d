"""Re-audit after a one-document vault change: how much of a full audit does it cost?

Builds a generated workspace (``reaudit_workspace.py``: 20 policy documents, 500 recorded
answers), runs the full audit job, edits one fact of one document, then runs the ``reverify``
job the vault sensor would start, both in-process through Dagster as the product runs them.
Models are loaded by a small warm-up audit first, so neither timing pays for loading them.

    python -m benchmarks.reaudit [--documents 20] [--answers 500] [--json OUT]

Prints the two wall times, their ratio (goal <= 0.15), how many claims the re-verification
sent to the verifier, and the time of each step of both runs.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from dagster import DagsterInstance, ExecuteInProcessResult

from audit_pipeline.defs.graph import build_definitions
from benchmarks.reaudit_workspace import Workspace, build_workspace, change_document
from benchmarks.step_times import step_spans


def _run(workspace: Workspace, job: str, instance: DagsterInstance) -> tuple[float, Any]:
    defs = build_definitions(workspace.config)
    run_config = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
    started = time.perf_counter()
    result = defs.resolve_job_def(job).execute_in_process(
        partition_key="recorded", instance=instance, run_config=run_config
    )
    elapsed = time.perf_counter() - started
    if not result.success:
        raise SystemExit(f"{job} failed on {workspace.root}")
    return elapsed, result


def _step_times(result: ExecuteInProcessResult, instance: DagsterInstance) -> dict[str, float]:
    """Seconds per step, from the run's event log."""
    return {step: end - start for step, (start, end) in step_spans(instance, result.run_id).items()}


def _verdict_counts(result: ExecuteInProcessResult) -> dict[str, Any]:
    materialization = result.asset_materializations_for_node("verdicts")[-1]
    return {key: value.value for key, value in materialization.metadata.items()}


def measure(root: Path, documents: int, answers: int) -> dict[str, Any]:
    instance = DagsterInstance.ephemeral()
    warmup = build_workspace(root / "warmup", documents=2, answers=10, seed=1)
    _run(warmup, "full_audit", instance)
    workspace = build_workspace(root / "bench", documents=documents, answers=answers)
    full_s, full = _run(workspace, "full_audit", instance)
    change_document(workspace)
    reverify_s, again = _run(workspace, "reverify", instance)
    counts = _verdict_counts(again)
    return {
        "documents": documents,
        "responses": answers,
        "claims": counts["claims"],
        "reverified_claims": counts["verified_now"],
        "stale_claims": counts.get("label_stale", 0),
        "full_s": round(full_s, 2),
        "reverify_s": round(reverify_s, 2),
        "ratio": round(reverify_s / full_s, 3),
        "full_steps": {k: round(v, 2) for k, v in _step_times(full, instance).items()},
        "reverify_steps": {k: round(v, 2) for k, v in _step_times(again, instance).items()},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=20)
    parser.add_argument("--answers", type=int, default=500)
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        figures = measure(Path(tmp), args.documents, args.answers)
    print(
        f"{figures['documents']} documents, {figures['responses']} recorded answers, "
        f"{figures['claims']} claims"
    )
    print(f"full audit        {figures['full_s']:8.1f} s")
    print(
        f"re-verify         {figures['reverify_s']:8.1f} s  "
        f"({figures['reverified_claims']} claims verified again, "
        f"{figures['stale_claims']} stale)"
    )
    print(f"ratio             {figures['ratio']:8.3f}  (goal <= 0.15)")
    for name in ("full_steps", "reverify_steps"):
        slow = sorted(figures[name].items(), key=lambda kv: -kv[1])[:6]
        print(f"{name}: " + ", ".join(f"{step} {s:.1f}s" for step, s in slow))
    if args.json:
        keys = ("documents", "responses", "claims", "reverified_claims", "full_s", "reverify_s")
        args.json.write_text(json.dumps({k: figures[k] for k in (*keys, "ratio")}, indent=2))


if __name__ == "__main__":
    main()
