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

With ``--executor dask|celery`` the configurations are instead the in-process run beside the
audit on a cluster of ``--workers`` N workers (each count in turn, ``detection.batches`` = N,
at least 2, so every worker has a batch): a Dask LocalCluster on 127.0.0.1, or Celery workers
on a ``redis-server`` of their own (``local_celery.py``). Only the batch steps run on the
workers (``defs/cluster_execution.py``). The start-up figure is what the cluster cost before
the audit could use it: for Dask, the run's start to its first step (which waits for the
LocalCluster); for Celery, the workers' start until each answers a ping (they are started
before the audit, as a deployment's would be).

Prints, per configuration, claims/s of the detection stages (from the ``claims`` step's start
to the end of the last ``verdicts`` step, process start-ups included), the time the batch steps
themselves took, and the whole audit's wall time. Before the one-process audit a small warm-up
audit loads the models, so that figure does not pay for loading them; every step process of a
multiprocess run, and every worker of a cluster, loads the models it uses, and that cost is
part of scaling out.

    python -m benchmarks.scale [--documents 20] [--answers 500] [--json OUT]
    python -m benchmarks.scale --executor dask|celery [--workers 1 2 4]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import yaml

from audit_pipeline.commands.run_audit import RunOptions, instance, run_audit
from audit_pipeline.config import load_config
from audit_pipeline.defs.celery_cluster import BROKER_ENV
from benchmarks.local_celery import celery_workers, redis_server
from benchmarks.reaudit_workspace import Workspace, build_workspace
from benchmarks.step_times import step_spans

IN_PROCESS = "1 process"
CONFIGURATIONS: dict[str, dict[str, Any]] = {
    IN_PROCESS: {"batches": 1, "processes": 1, "threads": None},
    "2 processes": {"batches": 2, "processes": 2, "threads": None},
    "2 processes, 1 thread": {"batches": 2, "processes": 2, "threads": 1},
}


def configurations(executor: str | None, workers: list[int]) -> dict[str, dict[str, Any]]:
    """The multiprocess configurations above, or the in-process run beside a cluster of each
    worker count."""
    if executor is None:
        return CONFIGURATIONS
    cluster = {
        f"{executor}, {count} worker{'s' if count > 1 else ''}": {
            "batches": max(count, 2),
            "processes": 1,
            "threads": None,
            "executor": executor,
            "workers": count,
        }
        for count in workers
    }
    return {IN_PROCESS: CONFIGURATIONS[IN_PROCESS], **cluster}


DETECTION = ("claims", "evidence", "verdicts")  # the assets whose steps are timed


def _with_batches(workspace: Workspace, batches: int) -> None:
    config = yaml.safe_load(workspace.config.read_text(encoding="utf-8"))
    config["detection"] = {**config.get("detection", {}), "batches": batches}
    workspace.config.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def _audit(workspace: Workspace, settings: dict[str, Any]) -> dict[str, Any]:
    config = load_config(workspace.config)
    options = RunOptions(
        target="recorded",
        processes=settings["processes"],
        executor=settings.get("executor"),
        workers=settings.get("workers", 2),
    )
    started = time.perf_counter()
    result = run_audit(workspace.config, config, options)
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
    figures = {}
    if settings.get("executor") == "dask":  # the LocalCluster starts before the first step
        started_run = next(
            entry.timestamp
            for entry in runs.all_logs(run.run_id)
            if entry.dagster_event is not None
            and entry.dagster_event.event_type_value == "PIPELINE_START"
        )
        first_step = min(start for start, _ in spans.values())
        figures["startup_s"] = round(first_step - started_run, 2)
    return {
        **figures,
        "claims": claims,
        "detection_s": round(window, 2),
        "claims_per_s": round(claims / window, 2),
        "batch_steps_s": {step: round(s, 2) for step, s in sorted(batches.items())},
        "audit_s": round(wall, 2),
        "verified": counts["verdicts"]["verified_now"],
    }


def _run_one(settings: dict[str, Any], root: Path, documents: int, answers: int) -> dict[str, Any]:
    """One configuration, in this (fresh) process."""
    os.environ.pop("DAGSTER_HOME", None)  # each workspace records its runs next to its warehouse
    if settings["processes"] == 1:  # load the models here first: steps run here
        warmup = build_workspace(root / "warmup", documents=2, answers=10, seed=1)
        _audit(warmup, CONFIGURATIONS[IN_PROCESS])
    workspace = build_workspace(root / "bench", documents, answers)
    _with_batches(workspace, settings["batches"])
    return _audit(workspace, settings)


def measure(
    root: Path, documents: int, answers: int, chosen: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Each configuration in a process of its own: the multiprocess executor's fork server
    (and the thread setting its step processes inherit) starts afresh for each, and so do the
    Celery workers and their broker."""
    figures = {}
    for number, (name, settings) in enumerate(chosen.items()):
        out = root / f"figures-{number}.json"
        threads = settings["threads"]
        environment = dict(os.environ)
        if threads is not None:
            environment |= {"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
        command = [
            *(sys.executable, "-m", "benchmarks.scale", "--run", json.dumps(settings)),
            *("--root", str(root / str(number)), "--json", str(out)),
            *("--documents", str(documents), "--answers", str(answers)),
        ]
        startup = {}
        with ExitStack() as cluster:
            if settings.get("executor") == "celery":
                folder = root / f"redis-{number}"
                folder.mkdir(parents=True)
                broker = cluster.enter_context(redis_server(folder))
                environment[BROKER_ENV] = broker
                startup["startup_s"] = round(
                    cluster.enter_context(celery_workers(broker, settings["workers"])), 2
                )
            subprocess.run(command, env=environment, check=True)
        figures[name] = {**startup, **json.loads(out.read_text())}
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=20)
    parser.add_argument("--answers", type=int, default=500)
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument(
        "--executor",
        choices=["dask", "celery"],
        help="compare the in-process run with the batches on a cluster of --workers workers",
    )
    parser.add_argument(
        "--workers", type=int, nargs="+", default=[1, 2, 4], help="worker counts (default 1 2 4)"
    )
    parser.add_argument("--run", help=argparse.SUPPRESS)  # one configuration's settings
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run:  # one configuration, for measure()
        figures = _run_one(json.loads(args.run), args.root, args.documents, args.answers)
        args.json.write_text(json.dumps(figures, indent=2))
        return
    if any(count < 1 for count in args.workers):
        parser.error("--workers must be at least 1")
    chosen = configurations(args.executor, args.workers)
    with tempfile.TemporaryDirectory() as tmp:
        figures = measure(Path(tmp), args.documents, args.answers, chosen)
    claims = next(iter(figures.values()))["claims"]
    print(
        f"{args.documents} documents, {args.answers} recorded answers, {claims} claims, "
        f"{os.cpu_count()} CPU cores"
    )
    print(
        f"{'configuration':24} {'batches':>7} {'claims/s':>9} {'detection':>10} {'audit':>8} "
        f"{'start-up':>9}  batch steps"
    )
    for name, row in figures.items():
        steps = ", ".join(f"{step} {s:.1f}s" for step, s in row["batch_steps_s"].items())
        startup = f"{row['startup_s']:8.1f}s" if "startup_s" in row else f"{'-':>9}"
        print(
            f"{name:24} {chosen[name]['batches']:7} {row['claims_per_s']:9.1f} "
            f"{row['detection_s']:9.1f}s {row['audit_s']:7.1f}s {startup}  {steps or '-'}"
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
