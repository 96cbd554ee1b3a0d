"""Run an audit's batch steps on a cluster of workers (Dask or Celery), every other step here.

Why not dagster-dask's and dagster-celery's executors as they come:

- dagster-dask's plans every step before the run starts, so it cannot run a graph with dynamic
  outputs (dagster-io/dagster#9785), and ``detection.batches`` decides its batches at run time;
- both send every step to the workers, while the warehouse is one DuckDB file with one writer.
  The steps that open it (plans, writers, responses, scores) belong on the writer's node.

So :class:`ClusterExecutor` follows Dagster's own execution loop (``ActiveExecution``, as the
multiprocess and Celery executors do): a step tagged :data:`CLUSTER_STEP_TAGS` (the batch steps:
they search the LanceDB index or run the models and open no warehouse) is submitted to the
cluster; every other step runs in this process, one at a time, while the cluster works. The
process that runs the audit is then the warehouse's one writer, wherever the workers are.

A worker marks itself (:func:`mark_cluster_worker`) and the warehouse resource refuses to open
DuckDB there, so an executor that sends a warehouse step to a worker (dagster-celery's own,
pointed at these workers) fails with a clear error instead of becoming a second writer.
"""

from __future__ import annotations

import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack
from typing import Protocol

from dagster import DagsterEvent
from dagster._core.events import EngineEventData
from dagster._core.execution.api import create_execution_plan, execute_plan_iterator
from dagster._core.execution.context.system import PlanOrchestrationContext
from dagster._core.execution.plan.active import ActiveExecution
from dagster._core.execution.plan.instance_concurrency_context import InstanceConcurrencyContext
from dagster._core.execution.plan.plan import ExecutionPlan
from dagster._core.execution.plan.state import KnownExecutionState
from dagster._core.execution.plan.step import ExecutionStep
from dagster._core.execution.retries import RetryMode
from dagster._core.executor.base import Executor
from dagster._utils.error import serializable_error_info_from_exc_info

CLUSTER_TAG = "audit-pipeline/runs-on"
CLUSTER_STEP_TAGS = {CLUSTER_TAG: "cluster"}  # the op tags of a step the workers may run
_TICK_S = 0.1  # how often finished cluster steps are looked for

_in_worker = False


def mark_cluster_worker() -> None:
    """This process runs steps for a cluster executor: it must not open the warehouse."""
    global _in_worker
    _in_worker = True


def in_cluster_worker() -> bool:
    return _in_worker


class PendingStep(Protocol):
    """A step submitted to the cluster."""

    def done(self) -> bool: ...

    def events(self) -> Sequence[DagsterEvent]:
        """The step's events; raises what the task raised when it failed outside the step."""
        ...

    def cancel(self) -> None: ...


Submit = Callable[[PlanOrchestrationContext, ExecutionStep, KnownExecutionState], PendingStep]


class ClusterExecutor(Executor, ABC):
    """Batch steps on the cluster that :meth:`connect` opens, the rest in this process."""

    engine = "cluster"  # named in the run's engine events

    @property
    def retries(self) -> RetryMode:
        return RetryMode.DISABLED

    @abstractmethod
    def connect(self, plan_context: PlanOrchestrationContext) -> AbstractContextManager[Submit]:
        """The cluster for one run: a function that submits a step to it."""

    def execute(
        self, plan_context: PlanOrchestrationContext, execution_plan: ExecutionPlan
    ) -> Iterator[DagsterEvent]:
        with ExitStack() as stack:
            submit = stack.enter_context(self.connect(plan_context))
            concurrency = stack.enter_context(
                InstanceConcurrencyContext(plan_context.instance, plan_context.dagster_run)
            )
            active = stack.enter_context(
                ActiveExecution(
                    execution_plan, self.retries, instance_concurrency_context=concurrency
                )
            )
            pending: dict[str, PendingStep] = {}
            stopping = False
            while (not stopping and not active.is_complete) or pending:
                if active.check_for_interrupts():
                    stopping = True
                    active.mark_interrupted()
                    for task in pending.values():
                        task.cancel()
                    yield DagsterEvent.engine_event(
                        plan_context,
                        f"{self.engine} executor: interrupted, cancelling the submitted steps",
                        EngineEventData.interrupted(list(pending)),
                    )
                if not stopping:
                    here = []
                    for step in active.get_steps_to_execute():
                        if step.tags.get(CLUSTER_TAG) == CLUSTER_STEP_TAGS[CLUSTER_TAG]:
                            pending[step.key] = submit(plan_context, step, active.get_known_state())
                        else:
                            here.append(step)
                    yield from active.concurrency_event_iterator(plan_context)
                    for step in here:
                        for event in self._run_here(plan_context, step, active.get_known_state()):
                            yield event
                            active.handle_event(event)
                        active.verify_complete(plan_context, step.key)
                finished = [key for key, task in pending.items() if task.done()]
                for key in finished:
                    for event in self._events(plan_context, active, key, pending.pop(key)):
                        yield event
                        active.handle_event(event)
                    active.verify_complete(plan_context, key)
                yield from active.plan_events_iterator(plan_context)
                if pending and not finished:
                    time.sleep(_TICK_S)

    def _events(
        self,
        plan_context: PlanOrchestrationContext,
        active: ActiveExecution,
        key: str,
        task: PendingStep,
    ) -> Sequence[DagsterEvent]:
        """A finished cluster step's events, or its failure when the task itself failed (a
        worker lost, an error outside the step)."""
        try:
            return task.events()
        except Exception:
            error = serializable_error_info_from_exc_info(sys.exc_info())
            step_context = plan_context.for_step(active.get_step_by_key(key))
            return [
                self.log_failure_or_retry_event_after_error(
                    step_context, error, active.get_known_state()
                )
            ]

    @staticmethod
    def _run_here(
        plan_context: PlanOrchestrationContext, step: ExecutionStep, known: KnownExecutionState
    ) -> Iterator[DagsterEvent]:
        """One step in this process, as a multiprocess step process runs it."""
        job = plan_context.reconstructable_job
        plan = create_execution_plan(
            job, plan_context.run_config, step_keys_to_execute=[step.key], known_state=known
        )
        yield from execute_plan_iterator(
            plan,
            job,
            plan_context.dagster_run,
            plan_context.instance,
            run_config=plan_context.run_config,
        )
