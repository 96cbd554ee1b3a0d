"""Where asset values travel between steps: one folder per Dagster run.

Dagster's default IO manager stores every output at ``<storage>/<asset>/<partition>``, one
slot shared by every run of the instance. Two audits running at once (two CI jobs, or a CI job
beside a scheduled audit) then read each other's step outputs: one audit scored with the other
audit's responses, printed the other's decision, and left its own audit ``running``. Here each
run writes under ``<storage>/audit_runs/<run_id>/``, and a step reads what its own run (or, on
re-execution, the parent run that produced the step) wrote. Only an asset the run does not
compute itself (``reverify`` reads the target's latest ``responses``) is looked up: the latest
materialisation of that asset partition in the instance's event log.

Values that are not assets (a batch of evidence or verdicts handed from one step of a
graph-backed asset to the next, see ``detection.batches``) are stored the same way under
``<run_id>/steps/<partition>/<step key>/<output>[/<mapping key>]``; each step process, or each
pod on Kubernetes, reads them back from there, so this folder must be shared between them.

Older copies are removed once a newer run has stored the same asset partition (or step output)
and the run that wrote them is over, so storage holds about one copy per asset partition plus
the runs in flight.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from dagster import (
    AssetKey,
    AssetRecordsFilter,
    ConfigurableIOManager,
    DagsterInstance,
    DagsterInvariantViolationError,
    InputContext,
    OutputContext,
)

RUNS_FOLDER = "audit_runs"
STEPS_FOLDER = "steps"  # values handed between the steps of one asset, not assets themselves
_LOOKBACK = 20  # materialisations examined when looking for a stored copy


class RunStorageError(RuntimeError):
    """A step's input was never stored (or was pruned): the run cannot go on."""


class RunScopedIOManager(ConfigurableIOManager):
    """Pickles asset values under ``<base_dir>/<run_id>/<asset key>/<partition>``.

    ``base_dir`` defaults to ``<instance storage>/audit_runs``.
    """

    base_dir: str | None = None

    def _root(self, instance: DagsterInstance) -> Path:
        if self.base_dir:
            return Path(self.base_dir)
        return Path(instance.storage_directory()) / RUNS_FOLDER

    @staticmethod
    def _relative(asset_key: AssetKey, partition: str | None) -> Path:
        parts = [*asset_key.path, partition] if partition is not None else list(asset_key.path)
        return Path(*parts)

    @staticmethod
    def _step_relative(output: OutputContext, partition: str | None) -> Path:
        """Where a step output that is no asset lives inside its run's folder."""
        mapping = [output.mapping_key] if output.mapping_key else []
        return Path(
            STEPS_FOLDER,
            *([partition] if partition else []),
            output.step_key,
            output.name,
            *mapping,
        )

    def handle_output(self, context: OutputContext, obj: Any) -> None:
        instance = context.step_context.instance
        if context.has_asset_key:
            relative = self._relative(
                context.asset_key,
                context.asset_partition_key if context.has_asset_partitions else None,
            )
        else:
            partition = context.partition_key if context.has_partition_key else None
            relative = self._step_relative(context, partition)
        root = self._root(instance)
        path = root / context.run_id / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as stream:
                pickle.dump(obj, stream, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        _prune(root, relative, keep_run=context.run_id, instance=instance)

    def load_input(self, context: InputContext) -> Any:
        upstream = context.upstream_output
        if upstream is None:
            raise RunStorageError(f"input {context.name!r} has no upstream output: nothing to load")
        if not upstream.has_asset_key:  # a value handed on inside the run (or its parent run)
            # The run's partition (the upstream's own context may not be asked for it).
            partition = context.partition_key if context.has_partition_key else None
            relative = self._step_relative(upstream, partition)
            path = self._root(context.instance) / upstream.run_id / relative
            return _unpickle(
                path,
                f"no stored output {upstream.name!r} of step {upstream.step_key} for run "
                f"{upstream.run_id}: run the step again",
            )
        partition = context.asset_partition_key if context.has_asset_partitions else None
        relative = self._relative(upstream.asset_key, partition)
        root = self._root(context.instance)
        run_id = _producing_run(upstream, context.instance)
        if run_id is not None:
            path = root / run_id / relative
        else:
            path = _latest_stored(root, relative, upstream.asset_key, partition, context.instance)
        return _unpickle(
            path,
            f"no stored value of {upstream.asset_key.to_user_string()}"
            f"{f' [{partition}]' if partition else ''} for run {run_id or '(latest)'}: "
            "materialise it again",
        )

    def stored_value(
        self, instance: DagsterInstance, run_id: str, asset_key: AssetKey, partition: str | None
    ) -> Any:
        """The value ``run_id`` stored for an asset partition, read outside the run: the CLI
        reads the decision of a run whose steps ran in other processes."""
        path = self._root(instance) / run_id / self._relative(asset_key, partition)
        where = f" [{partition}]" if partition else ""
        return _unpickle(path, f"run {run_id} stored no {asset_key.to_user_string()}{where}")


def _unpickle(path: Path, missing: str) -> Any:
    try:
        with path.open("rb") as stream:
            return pickle.load(stream)
    except FileNotFoundError:
        raise RunStorageError(missing) from None


def _producing_run(upstream: OutputContext, instance: DagsterInstance) -> str | None:
    """The run that computed the input: this run, or the parent run a re-execution reuses.

    None for an asset outside the run's selection (Dagster then hands over a placeholder).
    """
    try:
        run_id = upstream.run_id
    except DagsterInvariantViolationError:
        return None
    return run_id if instance.has_run(run_id) else None


def _latest_stored(
    root: Path,
    relative: Path,
    asset_key: AssetKey,
    partition: str | None,
    instance: DagsterInstance,
) -> Path:
    """The stored copy of the asset partition's latest materialisation that still exists."""
    partitions = [partition] if partition else None
    records = instance.fetch_materializations(
        AssetRecordsFilter(asset_key=asset_key, asset_partitions=partitions), limit=_LOOKBACK
    ).records
    for record in records:
        path = root / record.run_id / relative
        if path.exists():
            return path
    where = f" partition {partition!r}" if partition else ""
    raise RunStorageError(
        f"{asset_key.to_user_string()}{where} has no stored materialisation: run full_audit first"
    )


def _prune(root: Path, relative: Path, *, keep_run: str, instance: DagsterInstance) -> None:
    """Drop copies of the same asset partition that finished runs wrote before this one."""
    try:
        runs = [entry for entry in os.scandir(root) if entry.is_dir() and entry.name != keep_run]
    except OSError:
        return
    for entry in runs:
        stale = Path(entry.path) / relative
        if not stale.exists():
            continue
        run = instance.get_run_by_id(entry.name)
        if run is not None and not run.is_finished:
            continue  # an audit still in flight reads its own copy
        with contextlib.suppress(OSError):
            stale.unlink()
            _remove_empty_parents(stale.parent, stop=root)


def _remove_empty_parents(folder: Path, stop: Path) -> None:
    while folder != stop and folder.is_relative_to(stop):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
