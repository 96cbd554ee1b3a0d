"""The ``celery`` executor: the audit's batch steps as Celery tasks (``audit-pipeline run
--executor celery``), every other step in the process that runs the audit (``cluster_execution``).

The tasks are dagster-celery's (``execute_plan`` on the ``dagster`` queue): a worker rebuilds the
job from ``audit.yaml``, runs the one step and returns its events. Workers run the app of
``audit_pipeline.defs.celery_workers``:

    AUDIT_CELERY_BROKER=redis://HOST:6379/0 celery -A audit_pipeline.defs.celery_workers \\
        worker -Q dagster --concurrency 1

The broker's URL (it may hold a password) is read from ``$AUDIT_CELERY_BROKER`` by both sides,
never stored in a run's configuration; results come back through the broker unless
``$AUDIT_CELERY_BACKEND`` names another store.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from celery import Celery
from dagster import (
    DagsterEvent,
    Field,
    InitExecutorContext,
    Noneable,
    StringSource,
    executor,
    multiple_process_executor_requirements,
)
from dagster._core.execution.context.system import PlanOrchestrationContext
from dagster._core.execution.plan.state import KnownExecutionState
from dagster._core.execution.plan.step import ExecutionStep
from dagster._core.execution.retries import RetryMode
from dagster._core.executor.base import Executor
from dagster._grpc.types import ExecuteStepArgs
from dagster._serdes import pack_value
from dagster_celery.executor import CeleryExecutor
from dagster_celery.make_app import make_app
from dagster_celery.tasks import create_task
from dagster_shared.serdes import deserialize_value

from audit_pipeline.defs.cluster_execution import ClusterExecutor, Submit

BROKER_ENV = "AUDIT_CELERY_BROKER"
BACKEND_ENV = "AUDIT_CELERY_BACKEND"
QUEUE = "dagster"  # dagster-celery's queue, which its app routes execute_plan to

CELERY_CONFIG = {
    "broker": Field(
        StringSource,
        is_required=False,
        default_value={"env": BROKER_ENV},
        description="The Celery broker's URL (default: $AUDIT_CELERY_BROKER).",
    ),
    "backend": Field(
        Noneable(StringSource),
        is_required=False,
        default_value=None,
        description="Where task results go (default: the broker).",
    ),
}


def celery_app(broker: str, backend: str | None = None) -> Celery:
    """dagster-celery's app (its queue, priorities and prefetch settings) on ``broker``, with
    its ``execute_plan`` task registered."""
    settings = CeleryExecutor.for_cli(broker=broker, backend=backend or broker).app_args()
    app = make_app(settings)
    create_task(app)
    return app


def broker_from_environment() -> tuple[str, str | None]:
    broker = os.environ.get(BROKER_ENV)
    if not broker:
        raise RuntimeError(
            f"${BROKER_ENV} is not set: name the Celery broker (redis://HOST:PORT/0)"
        )
    return broker, os.environ.get(BACKEND_ENV) or None


class _CeleryStep:
    def __init__(self, result: Any) -> None:
        self.result = result  # celery.result.AsyncResult

    def done(self) -> bool:
        return bool(self.result.ready())

    def events(self) -> Sequence[DagsterEvent]:
        return [deserialize_value(event, DagsterEvent) for event in self.result.get()]

    def cancel(self) -> None:
        self.result.revoke()


class CeleryClusterExecutor(ClusterExecutor):
    engine = "Celery"

    def __init__(self, broker: str, backend: str | None) -> None:
        self.broker = broker
        self.backend = backend

    @contextmanager
    def connect(self, plan_context: PlanOrchestrationContext) -> Iterator[Submit]:
        app = celery_app(self.broker, self.backend)
        task = app.tasks["execute_plan"]

        def submit(
            context: PlanOrchestrationContext, step: ExecutionStep, known: KnownExecutionState
        ) -> _CeleryStep:
            arguments = ExecuteStepArgs(
                job_origin=context.reconstructable_job.get_python_origin(),
                run_id=context.dagster_run.run_id,
                step_keys_to_execute=[step.key],
                instance_ref=context.instance.get_ref(),
                retry_mode=RetryMode.DISABLED,
                known_state=known,
            )
            signature = task.si(
                execute_step_args_packed=pack_value(arguments),
                executable_dict=context.reconstructable_job.to_dict(),
            )
            return _CeleryStep(signature.apply_async(queue=QUEUE))

        try:
            yield submit
        finally:
            app.close()


@executor(
    name="celery",
    config_schema=CELERY_CONFIG,
    requirements=multiple_process_executor_requirements(),
)
def celery_cluster_executor(init_context: InitExecutorContext) -> Executor:
    """Batch steps as Celery tasks, the warehouse's steps in the run's own process."""
    config: dict[str, Any] = dict(init_context.executor_config)
    return CeleryClusterExecutor(config["broker"], config.get("backend"))
