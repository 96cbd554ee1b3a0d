"""What ``audit-pipeline run --executor dask|celery`` checks before an audit starts.

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
from typing import Any
from urllib.parse import urlsplit

from audit_pipeline.commands.preflight import UsageError

DEFAULT_WORKERS = 2  # a LocalCluster's worker processes when --workers is not given


def check_executor(config: Any, args: argparse.Namespace) -> None:
    """The executor's arguments, and that the cluster would keep one writer per file."""
    executor = args.executor
    if executor is None:
        if args.scheduler is not None or args.workers is not None:
            raise UsageError("--scheduler and --workers need --executor dask")
        return
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
        if not urlsplit(where).scheme:
            raise UsageError(
                f"--executor celery reads the broker's URL from ${BROKER_ENV} "
                "(redis://HOST:PORT/0), which is not set"
            )
    if not _on_this_machine(urlsplit(where).hostname or ""):
        _check_one_machine_writers(config, executor)


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
