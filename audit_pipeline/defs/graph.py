"""The audit pipeline's Dagster graph: every asset, check, job and resource, built from one
configuration file.

Nothing is built at import: the CLI imports this module and must be able to report a broken
``./audit.yaml`` (or ignore it when ``--config`` names another file) instead of crashing while
importing. ``audit_pipeline.definitions`` is the module Dagster loads (its ``@dg.definitions``
function calls :func:`build_definitions`).

The configuration file comes from ``$AUDIT_CONFIG`` (default: ``audit.yaml`` in the working
directory, else the one at the repository root), so ``dagster dev`` and the CLI build the same
graph from the same settings.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from dagster import (
    AssetChecksDefinition,
    AssetsDefinition,
    Definitions,
    ExecutorDefinition,
    JobDefinition,
    StaticPartitionsDefinition,
    build_reconstructable_job,
)

from audit_pipeline.config import AuditConfig, load_config
from audit_pipeline.defs.automation import (
    build_jobs,
    build_marks_sensor,
    build_suite_sensor,
    build_vault_sensor,
    build_weekly_schedule,
    weekly_freshness,
)
from audit_pipeline.defs.claim_verification_assets import build_claim_verification_assets
from audit_pipeline.defs.evaluation_assets import EVALUATION_ASSETS, retrieval_eval_job
from audit_pipeline.defs.marks_assets import analyst_marks
from audit_pipeline.defs.resources import resources_from_config
from audit_pipeline.defs.scoring_report_assets import build_scoring_report_assets
from audit_pipeline.defs.suite_response_assets import build_responses_asset, prompt_suite
from audit_pipeline.defs.validation_assets import build_validation_assets
from audit_pipeline.defs.vault_index_assets import VAULT_ASSETS, VAULT_CHECKS

if TYPE_CHECKING:  # what build_reconstructable_job returns; Dagster does not export the name
    from dagster._core.definitions.reconstruct import ReconstructableJob

REPO_ROOT = Path(__file__).resolve().parents[2]


def default_config_path() -> Path:
    configured = os.environ.get("AUDIT_CONFIG")
    if configured:
        return Path(configured).resolve()
    local = Path.cwd() / "audit.yaml"
    return local.resolve() if local.is_file() else REPO_ROOT / "audit.yaml"


def target_partitions(config: AuditConfig) -> StaticPartitionsDefinition:
    """One partition per configured target."""
    return StaticPartitionsDefinition(sorted(config.targets))


def build_assets(config: AuditConfig, batches: int | None = None) -> list[AssetsDefinition]:
    """Every asset; the audit stages are partitioned by the configured targets. ``batches``
    overrides ``detection.batches`` (how the work is split, not what it finds)."""
    partitions = target_partitions(config)
    return [
        *VAULT_ASSETS,
        analyst_marks,
        prompt_suite,
        build_responses_asset(partitions),
        *build_claim_verification_assets(partitions, batches or config.detection.batches),
        *build_validation_assets(partitions),
        *build_scoring_report_assets(
            partitions,
            with_waivers=config.waivers is not None,
            freshness=weekly_freshness(config),
        ),
    ]


def build_checks(config: AuditConfig) -> list[AssetChecksDefinition]:
    return [*VAULT_CHECKS]


def cluster_executor(name: str) -> ExecutorDefinition:
    """The executor that runs the batch steps on a cluster: ``dask`` or ``celery`` (imported
    only when asked for)."""
    if name == "dask":
        from audit_pipeline.defs.dask_cluster import dask_cluster_executor

        return dask_cluster_executor
    if name == "celery":
        from audit_pipeline.defs.celery_cluster import celery_cluster_executor

        return celery_cluster_executor
    raise ValueError(f"unknown executor {name!r}: dask or celery")


def build_definitions(
    config_path: str | Path | None = None,
    executor: str | None = None,
    batches: int | None = None,
) -> Definitions:
    """Every definition; the jobs run under Dagster's default executor, or the cluster
    ``executor`` named (see :func:`cluster_executor`), with ``batches`` detection batches
    instead of ``detection.batches`` when given (a cluster run of a one-batch configuration:
    ``commands/cluster_preflight``)."""
    path = Path(config_path) if config_path else default_config_path()
    config = load_config(path)
    return Definitions(
        executor=cluster_executor(executor) if executor else None,
        assets=[*build_assets(config, batches), *EVALUATION_ASSETS],
        asset_checks=build_checks(config),
        jobs=[*build_jobs(), retrieval_eval_job],
        schedules=[build_weekly_schedule(config)],
        sensors=[
            build_vault_sensor(config),
            build_suite_sensor(config),
            build_marks_sensor(config),
        ],
        resources=resources_from_config(str(path.resolve()), config),
    )


def audit_job(
    config_path: str, job_name: str, executor: str | None = None, batches: int | None = None
) -> JobDefinition:
    """One job of the definitions built from ``config_path``.

    Module-level on purpose: an executor that runs steps in other processes (multiprocess)
    rebuilds the job in each of them by importing this module and calling this function with
    the same arguments (see :func:`reconstructable_audit_job`).
    """
    return build_definitions(config_path, executor, batches).resolve_job_def(job_name)


def reconstructable_audit_job(
    config_path: str | Path,
    job_name: str,
    executor: str | None = None,
    batches: int | None = None,
) -> ReconstructableJob:
    """The job as ``dagster.execute_job`` needs it to run its steps in several processes (or
    on a cluster's workers, with ``executor``)."""
    return build_reconstructable_job(
        __name__,
        audit_job.__name__,
        reconstructable_kwargs={
            "config_path": str(Path(config_path).resolve()),
            "job_name": job_name,
            "executor": executor,
            "batches": batches,
        },
    )
