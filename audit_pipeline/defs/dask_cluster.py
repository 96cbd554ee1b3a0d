"""The ``dask`` executor: the audit's batch steps on a Dask cluster (``audit-pipeline run
--executor dask``), every other step in the process that runs the audit (``cluster_execution``).

With ``scheduler`` (``tcp://HOST:PORT``) the steps go to that cluster's workers; without it a
``dask.distributed`` LocalCluster of ``workers`` processes on 127.0.0.1 is started for the run
and stopped after it. On a worker a step runs as dagster-dask runs it (``query_on_dask_worker``:
the job rebuilt from ``audit.yaml``, the step's plan, its events sent back), so a worker needs
the project installed and the same paths as this process (see docs/guides/scaling-out.md).
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from dagster import (
    DagsterEvent,
    Field,
    InitExecutorContext,
    Int,
    Noneable,
    StringSource,
    executor,
    multiple_process_executor_requirements,
)
from dagster._core.execution.context.system import PlanOrchestrationContext
from dagster._core.execution.plan.state import KnownExecutionState
from dagster._core.execution.plan.step import ExecutionStep
from dagster._core.executor.base import Executor
from dagster_dask.executor import query_on_dask_worker
from dask.distributed import Client, Future, LocalCluster

from audit_pipeline.defs.cluster_execution import ClusterExecutor, Submit, mark_cluster_worker

DASK_CONFIG = {
    "scheduler": Field(
        Noneable(StringSource),
        is_required=False,
        default_value=None,
        description="Address of a running Dask scheduler (tcp://HOST:PORT); without it a "
        "LocalCluster is started for the run.",
    ),
    "workers": Field(
        Int, is_required=False, default_value=2, description="LocalCluster worker processes."
    ),
}


def run_step_on_worker(arguments: bytes) -> bytes:
    """What a Dask worker runs for one step: dagster-dask's step runner, in a process marked as
    a cluster worker (it must not open the warehouse). Pickled both ways: Dask cannot size
    Dagster's records and would log a warning for each."""
    mark_cluster_worker()
    return pickle.dumps(query_on_dask_worker(*pickle.loads(arguments)))


class _DaskStep:
    def __init__(self, future: Future) -> None:
        self.future = future

    def done(self) -> bool:
        return bool(self.future.done())

    def events(self) -> Sequence[DagsterEvent]:
        events: list[DagsterEvent] = pickle.loads(self.future.result())
        return events

    def cancel(self) -> None:
        self.future.cancel()


class DaskClusterExecutor(ClusterExecutor):
    engine = "Dask"

    def __init__(self, scheduler: str | None, workers: int) -> None:
        self.scheduler = scheduler
        self.workers = workers

    @contextmanager
    def connect(self, plan_context: PlanOrchestrationContext) -> Iterator[Submit]:
        with self._cluster() as address, Client(address) as client:
            # Workers read the job's definitions (the config path) and the instance from here.
            instance = plan_context.instance.get_ref()

            def submit(
                context: PlanOrchestrationContext, step: ExecutionStep, known: KnownExecutionState
            ) -> _DaskStep:
                arguments: tuple[Any, ...] = (
                    [],  # dependencies: the loop submits a step once its inputs exist
                    context.reconstructable_job,
                    context.dagster_run,
                    context.run_config,
                    [step.key],
                    instance,
                    known,
                )
                future = client.submit(
                    run_step_on_worker,
                    pickle.dumps(arguments),
                    key=f"{context.dagster_run.run_id}.{step.key}",
                    pure=False,
                )
                return _DaskStep(future)

            yield submit

    @contextmanager
    def _cluster(self) -> Iterator[Any]:
        if self.scheduler is not None:
            yield self.scheduler
            return
        # One thread per worker (Dagster's step execution is not thread-safe); no dashboard,
        # which would take a fixed port.
        with LocalCluster(
            n_workers=self.workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster:
            try:
                yield cluster
            finally:
                # Every step's output is stored by now: a worker slow to exit (seconds on a busy
                # machine) is killed when the cluster closes, which is no news for the audit.
                logging.getLogger("distributed.nanny").setLevel(logging.ERROR)


@executor(
    name="dask",
    config_schema=DASK_CONFIG,
    requirements=multiple_process_executor_requirements(),
)
def dask_cluster_executor(init_context: InitExecutorContext) -> Executor:
    """Batch steps on a Dask cluster, the warehouse's steps in the run's own process."""
    config: dict[str, Any] = dict(init_context.executor_config)
    return DaskClusterExecutor(config["scheduler"], config["workers"])
