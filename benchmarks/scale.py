"""Detection in batches over several processes: what do 2 processes give over 1?

Builds one generated workspace per configuration (``reaudit_workspace.py``: 20 policy documents,
500 recorded answers) and audits it the way ``audit-pipeline run`` does, each configuration in a
fresh process:

- ``1 process``: one batch, every step in this process (the default);
- ``2 processes``: ``detection.batches: 2`` under Dagster's multiprocess executor with two
  steps at once (``--processes 2``): each batch of evidence and verification is a step in its
  own process;
- ``2 processes, 1 thread``: the same with ``OMP_NUM_THREADS=1`` in the step processes, so the
  two batches do not both spread torch over every core.

Prints, per configuration, claims/s of the detection stages (from the ``claims`` step's start
to the end of the last ``verdicts`` step, process start-ups included), the time the batch steps
themselves took, and the whole audit's wall time. Before the one-process audit a small warm-up
audit loads the models, so that figure does not pay for loading them; every step process of a
multiprocess run loads the models it uses (forked from a server that imported the libraries),
and that cost is part of scaling out.

    python -m benchmarks.scale [--documents 20] [--answers 500] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from audit_pipeline.commands.run_audit import RunOptions, instance, run_audit
from audit_pipeline.config import load_config
from benchmarks.reaudit_workspace import Workspace, build_workspace
from benchmarks.step_times import step_spans

CONFIGURATIONS: dict[str, dict[str, Any]] = {
    "1 process": {"batches": 1, "processes": 1, "threads": None},
    "2 processes": {"batches": 2, "processes": 2, "threads": None},
    "2 processes, 1 thread": {"batches": 2, "processes": 2, "threads": 1},
}
DETECTION = ("claims", "evidence", "verdicts")  # the assets whose steps are timed


def _with_batches(workspace: Workspace, batches: int) -> None:
    config = yaml.safe_load(workspace.config.read_text(encoding="utf-8"))
    config["detection"] = {**config.get("detection", {}), "batches": batches}
    workspace.config.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def _audit(workspace: Workspace, processes: int) -> dict[str, Any]:
    config = load_config(workspace.config)
    started = time.perf_counter()
    result = run_audit(workspace.config, config, RunOptions(target="recorded", processes=processes))
    wall = time.perf_counter() - started
    if not result.success:
        raise SystemExit(f"audit of {workspace.root} failed: {result.errors}")
    counts = dict(result.asset_counts)
    runs = instance(config)
    (run,) = runs.get_runs(limit=1)  # the audit just run
    spans = step_spans(runs, run.run_id)
    detection = [span for step, span in spans.items() if step.split(".")[0] in DETECTION]
    window = max(end for _, end in detection) - min(start for start, _ in detection)
    batches = {step: end - start for step, (start, end) in spans.items() if "_batch[" in step}
    claims = int(counts["claims"]["claims"])
    return {
        "claims": claims,
        "detection_s": round(window, 2),
        "claims_per_s": round(claims / window, 2),
        "batch_steps_s": {step: round(s, 2) for step, s in sorted(batches.items())},
        "audit_s": round(wall, 2),
        "verified": counts["verdicts"]["verified_now"],
    }


def _run_one(name: str, root: Path, documents: int, answers: int) -> dict[str, Any]:
    """One configuration, in this (fresh) process."""
    os.environ.pop("DAGSTER_HOME", None)  # each workspace records its runs next to its warehouse
    settings = CONFIGURATIONS[name]
    if settings["processes"] == 1:  # load the models here first: every step runs here
        _audit(build_workspace(root / "warmup", documents=2, answers=10, seed=1), processes=1)
    workspace = build_workspace(root / "bench", documents, answers)
    _with_batches(workspace, settings["batches"])
    return _audit(workspace, settings["processes"])


def measure(root: Path, documents: int, answers: int) -> dict[str, dict[str, Any]]:
    """Each configuration in a process of its own: the multiprocess executor's fork server
    (and the thread setting its step processes inherit) starts afresh for each."""
    figures = {}
    for number, (name, settings) in enumerate(CONFIGURATIONS.items()):
        out = root / f"figures-{number}.json"
        threads = settings["threads"]
        environment = dict(os.environ)
        if threads is not None:
            environment |= {"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.scale",
                "--run",
                name,
                "--root",
                str(root / str(number)),
                "--documents",
                str(documents),
                "--answers",
                str(answers),
                "--json",
                str(out),
            ],
            env=environment,
            check=True,
        )
        figures[name] = json.loads(out.read_text())
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=20)
    parser.add_argument("--answers", type=int, default=500)
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--run", choices=list(CONFIGURATIONS), help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run:  # one configuration, for measure()
        figures = _run_one(args.run, args.root, args.documents, args.answers)
        args.json.write_text(json.dumps(figures, indent=2))
        return
    with tempfile.TemporaryDirectory() as tmp:
        figures = measure(Path(tmp), args.documents, args.answers)
    claims = next(iter(figures.values()))["claims"]
    print(
        f"{args.documents} documents, {args.answers} recorded answers, {claims} claims, "
        f"{os.cpu_count()} CPU cores"
    )
    print(f"{'configuration':24} {'claims/s':>9} {'detection':>10} {'audit':>8}  batch steps")
    for name, row in figures.items():
        steps = ", ".join(f"{step} {s:.1f}s" for step, s in row["batch_steps_s"].items())
        print(
            f"{name:24} {row['claims_per_s']:9.1f} {row['detection_s']:9.1f}s "
            f"{row['audit_s']:7.1f}s  {steps or '-'}"
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
