"""What ``audit-pipeline run --executor dask|celery`` checks before an audit starts.

The cluster itself: ``--workers`` within what the machine can hold (each worker process loads
the models: a thousand of them took 21 GB and a load of 148 before anyone noticed), the
scheduler's or broker's address well formed and answering, with at least one worker behind it
(a run sent to nobody waits for ever), each refusal one line naming the address (a broker's
password masked). And the work: with ``detection.batches: 1`` no step is a batch step, so the
cluster would get nothing while the whole audit ran here; such a run is split into as many
batches as the cluster has workers (``ClusterPlan``), and says so.

Besides the arguments, the storage: the warehouse has one writer, the process that runs the
audit (its workers get only the batch steps, see ``defs/cluster_execution``). Two other files
are written by the workers too, and are SQLite files, whose writers must share one machine
(SQLite's WAL mode and its locks do not work across a network file system): the embedding
cache (``storage.embedding_cache``) and, with the CLI's own Dagster instance, the run's event
log. When the workers may be on other machines (the scheduler or broker is not on this one),
a configuration that would give either file writers on two machines is refused.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from audit_pipeline.commands.cluster_reach import (
    celery_workers,
    check_broker_url,
    check_reachable,
    dask_workers,
    masked,
)
from audit_pipeline.commands.preflight import UsageError

DEFAULT_WORKERS = 2  # a LocalCluster's worker processes when --workers is not given
# What one LocalCluster worker holds once it has run the batch steps (the embedding model, the
# verifier's models, spaCy, LanceDB): 1.1 GiB resident at its peak, measured on the policy
# workspace's audit of the cluster tests (a Celery pool process: 1.0 GiB); a third more for
# larger evidence.
WORKER_MEMORY_BYTES = 3 << 29  # 1.5 GiB
WORKERS_PER_CORE = 2  # each worker runs one step at a time; torch uses more threads in it
MAX_BATCHES = 256  # detection.batches' own limit


@dataclass(frozen=True)
class ClusterPlan:
    """How a cluster run splits the work: ``batches`` replaces ``detection.batches`` (None:
    as configured); ``notices`` say so, one line each."""

    batches: int | None = None
    notices: tuple[str, ...] = ()


def max_workers(cores: int, available_bytes: int) -> int:
    """The most LocalCluster workers this machine can run: two per core, and what the free
    memory holds at ``WORKER_MEMORY_BYTES`` each (at least one)."""
    return max(1, min(WORKERS_PER_CORE * cores, available_bytes // WORKER_MEMORY_BYTES))


def _check_workers(workers: int) -> None:
    import psutil

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    available = int(psutil.virtual_memory().available)
    bound = max_workers(cores or 1, available)
    if workers > bound:
        raise UsageError(
            f"--workers {workers} is more than this machine can run: {cores} core(s) and "
            f"{available / (1 << 30):.1f} GiB of free memory allow at most {bound} worker "
            f"processes (each loads the models, about {WORKER_MEMORY_BYTES / (1 << 30):.1f} GiB, "
            f"and runs on a core); use --workers {bound} or fewer, or --scheduler for a cluster "
            "of other machines"
        )


def check_executor(config: Any, args: argparse.Namespace) -> ClusterPlan:
    """The executor's arguments, the cluster's address and workers, and that the cluster
    would keep one writer per file; returns how the run splits its work."""
    executor = args.executor
    if executor is None:
        if args.scheduler is not None or args.workers is not None:
            raise UsageError("--scheduler and --workers need --executor dask")
        return ClusterPlan()
    if args.processes > 1:
        raise UsageError("--processes is the multiprocess executor's: drop it with --executor")
    if executor == "dask":
        if args.scheduler is not None and args.workers is not None:
            raise UsageError("--workers sizes a local cluster: the --scheduler's has its own")
        if args.workers is not None and args.workers < 1:
            raise UsageError("--workers must be at least 1")
        where = args.scheduler or "tcp://127.0.0.1"
        if urlsplit(where).scheme not in {"tcp", "tls"} or not urlsplit(where).hostname:
            raise UsageError(f"--scheduler {where!r} is not a Dask address (tcp://HOST:PORT)")
    else:
        from audit_pipeline.defs.celery_cluster import BROKER_ENV

        if args.scheduler is not None or args.workers is not None:
            raise UsageError("--scheduler and --workers are the dask executor's")
        where = os.environ.get(BROKER_ENV, "")
        if not where.strip():
            raise UsageError(
                f"--executor celery reads the broker's URL from ${BROKER_ENV} "
                "(redis://HOST:PORT/0), which is not set"
            )
        check_broker_url(where, f"${BROKER_ENV}")
    if config is None:  # the arguments alone
        return ClusterPlan()
    if not _on_this_machine(urlsplit(where).hostname or ""):
        _check_one_machine_writers(config, executor)
    workers = _cluster_workers(executor, args, where)
    return _plan(config, executor, workers)


def _cluster_workers(executor: str, args: argparse.Namespace, where: str) -> int:
    """How many workers the run will have: the local cluster's (checked against the machine),
    or those the scheduler or broker has now (refused when none, or when nothing answers)."""
    if executor == "dask" and args.scheduler is None:
        workers = args.workers or DEFAULT_WORKERS
        _check_workers(workers)
        return workers
    if executor == "dask":
        check_reachable(where, "--scheduler")
        found = dask_workers(where)
        start = f"dask worker {where}"
    else:
        from audit_pipeline.defs.celery_cluster import BROKER_ENV

        check_reachable(where, f"${BROKER_ENV}")
        found = celery_workers(where)
        start = "celery -A audit_pipeline.defs.celery_workers worker -Q dagster"
    if found == 0:
        raise UsageError(
            f"no {executor} worker is connected to {masked(where)}: the batch steps would wait "
            f"for one for ever; start one ({start}) and run again"
        )
    return found


def _plan(config: Any, executor: str, workers: int) -> ClusterPlan:
    if config.detection.batches > 1:
        return ClusterPlan()
    batches = min(MAX_BATCHES, max(2, workers))
    return ClusterPlan(
        batches,
        (
            f"detection.batches is 1, so no step would run on the {executor} cluster: this run "
            f"splits detection into {batches} batches for its {workers} worker(s) (set "
            "detection.batches in audit.yaml to choose)",
        ),
    )


def _on_this_machine(host: str) -> bool:
    """A loopback address or name: workers that reach it run on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_one_machine_writers(config: Any, executor: str) -> None:
    from audit_pipeline.commands.run_audit import instance

    if config.embedding_cache_path is not None:
        raise UsageError(
            f"the {executor} workers may be on other machines, and every worker would write "
            f"the embedding cache {config.embedding_cache_path}, a SQLite file whose writers "
            "must share one machine: set storage.embedding_cache: null in audit.yaml"
        )
    storage = type(instance(config).event_log_storage).__module__
    if "sqlite" in storage:
        raise UsageError(
            f"the {executor} workers may be on other machines, and each would write this "
            "run's Dagster event log, a SQLite file whose writers must share one machine: set "
            "DAGSTER_HOME to an instance with Postgres storage (dagster-postgres) that every "
            "worker reaches"
        )
