"""The detection batches on a real distributed executor (issue 26): a Dask LocalCluster of two
workers on 127.0.0.1, and two Celery workers on a Redis broker started here, each write the
claims, evidence and verdicts of one process, and only the batch steps leave the CLI's process
(it stays the warehouse's one writer).

Redis is Debian's ``redis-server``. Without it on PATH the Celery test is skipped (a user's
``make test`` needs no root), unless ``$AUDIT_TEST_REQUIRE_REDIS`` is set, as ``.ci/run`` sets
it: there a missing server fails the test.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from audit_pipeline.commands.cluster_preflight import check_executor
from audit_pipeline.commands.preflight import UsageError
from audit_pipeline.commands.run_audit import RunOptions, run_audit
from audit_pipeline.config import load_config
from audit_pipeline.defs import cluster_execution
from audit_pipeline.defs.celery_cluster import BROKER_ENV
from audit_pipeline.defs.resources import SecondWriterError, WarehouseResource
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.cli.helpers import assert_only_progress_lines, cli_process
from audit_pipeline_tests.defs.batch_rows import (
    BATCH_STEPS,
    assert_rows_of_one_process,
    step_processes,
)
from audit_pipeline_tests.policy_workspace import write_policy_workspace
from benchmarks.local_celery import RedisMissingError, celery_workers, redis_server

REQUIRE_REDIS = "AUDIT_TEST_REQUIRE_REDIS"


@pytest.fixture(scope="module")
def one_process(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The policy workspace audited in one batch, in one process: the rows to match."""
    config = write_policy_workspace(tmp_path_factory.mktemp("one-process"))
    result = run_audit(config, load_config(config), RunOptions(target="recorded"))
    assert result.success, result.errors
    return config


def _assert_only_batches_left_the_cli(config: Path) -> None:
    steps = step_processes(config)
    assert sorted(step for step in steps if "_batch[" in step) == BATCH_STEPS
    # Every other step ran where the writer did, in the CLI's process; no batch did.
    writer = steps["verdicts.verdict_writer"]
    assert {pid for step, pid in steps.items() if "_batch[" not in step} == {writer}
    assert writer not in {steps[step] for step in BATCH_STEPS}


@pytest.mark.slow
def test_dask_local_cluster_writes_the_rows_of_one_process(
    one_process: Path, tmp_path: Path
) -> None:
    """With the default ``detection.batches: 1`` the run is split for the cluster's two workers
    and says so (issue 33, row 6: it used to run every step here, in silence)."""
    batched = write_policy_workspace(tmp_path / "dask")
    run = cli_process(batched, "run", "--executor", "dask", "--workers", "2", "--report-only")
    assert run.returncode == 0, run.stderr
    assert_only_progress_lines(run.stderr)
    assert (
        run.stderr.strip()
        .splitlines()[0]
        .endswith(
            "] detection.batches is 1, so no step would run on the dask cluster: this run splits "
            "detection into 2 batches for its 2 worker(s) (set detection.batches in audit.yaml to "
            "choose)"
        )
    )
    _assert_only_batches_left_the_cli(batched)
    assert_rows_of_one_process(one_process, batched)


@pytest.fixture
def celery_broker(tmp_path: Path) -> Iterator[str]:
    """Two Celery workers of the project's app on a redis-server of their own."""
    try:
        with redis_server(tmp_path) as broker, celery_workers(broker, 2):
            yield broker
    except RedisMissingError as missing:
        if os.environ.get(REQUIRE_REDIS):
            pytest.fail(f"{missing}; ${REQUIRE_REDIS} requires it")
        pytest.skip(str(missing))


@pytest.mark.slow
def test_celery_workers_write_the_rows_of_one_process(
    one_process: Path, celery_broker: str, tmp_path: Path
) -> None:
    """The broker's two workers answer the preflight's ping, so the one-batch configuration
    is split in two for them (issue 33, row 6)."""
    batched = write_policy_workspace(tmp_path / "celery")
    run = cli_process(
        batched, "run", "--executor", "celery", "--report-only", env={BROKER_ENV: celery_broker}
    )
    assert run.returncode == 0, run.stderr
    assert_only_progress_lines(run.stderr)
    notice = run.stderr.strip().splitlines()[0]
    assert "this run splits detection into 2 batches for its 2 worker(s)" in notice
    _assert_only_batches_left_the_cli(batched)
    assert_rows_of_one_process(one_process, batched)


def test_a_worker_never_opens_the_warehouse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warehouse step sent to a worker (dagster-celery's own executor on these workers)
    fails there instead of becoming a second writer."""
    monkeypatch.setattr(cluster_execution, "_in_worker", True)
    warehouse = WarehouseResource(duckdb_path=str(tmp_path / "audit.duckdb"))
    with pytest.raises(SecondWriterError, match="only the process that runs the audit"):
        warehouse.get()
    assert not (tmp_path / "audit.duckdb").exists()


@pytest.mark.slow
def test_workers_on_other_machines_with_one_machine_files_are_refused(tmp_path: Path) -> None:
    """The embedding cache and the CLI's own Dagster instance are SQLite files: workers on
    other machines would be their second writers. The CLI refuses before it connects to
    anything (``.invalid`` never resolves) or starts an audit."""
    config = write_policy_workspace(tmp_path / "remote")
    remote = ("run", "--executor", "dask", "--scheduler", "tcp://scheduler.invalid:8786")
    run = cli_process(config, *remote)
    assert run.returncode == 2
    assert "embedding cache" in run.stderr
    assert "storage.embedding_cache: null" in run.stderr

    settings = yaml.safe_load(config.read_text())
    settings.setdefault("storage", {})["embedding_cache"] = None
    config.write_text(yaml.safe_dump(settings))
    run = cli_process(config, *remote)
    assert run.returncode == 2
    assert "event log" in run.stderr and "Postgres" in run.stderr
    audits = Warehouse(load_config(config).duckdb_path).query("SELECT count(*) AS n FROM audits")
    assert audits.n[0] == 0


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"scheduler": "tcp://127.0.0.1:8786"}, "need --executor dask"),
        ({"executor": "dask", "workers": 0}, "--workers must be at least 1"),
        ({"executor": "dask", "processes": 2}, "--processes is the multiprocess executor's"),
        ({"executor": "dask", "scheduler": "127.0.0.1:8786"}, "not a Dask address"),
        ({"executor": "dask", "scheduler": "tcp://127.0.0.1:8786", "workers": 2}, "local"),
        ({"executor": "celery", "workers": 2}, "the dask executor's"),
        ({"executor": "celery"}, f"${BROKER_ENV}"),
    ],
)
def test_executor_arguments_are_checked_before_the_audit(
    arguments: dict[str, object], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(BROKER_ENV, raising=False)
    given = {"executor": None, "scheduler": None, "workers": None, "processes": 1, **arguments}
    with pytest.raises(UsageError, match=re.escape(message)):
        check_executor(None, argparse.Namespace(**given))
