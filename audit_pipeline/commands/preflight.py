"""What ``audit-pipeline run`` checks before an audit starts.

A CI job reads exit 1 as "the release is bad" and anything else as "the job is broken", so every
mistake that can be found before the audit must end in one ``error:`` line and exit 2, with
nothing written: names and arguments, a selection of no prompt, the suite, the recording, the
environment variables that hold keys, where ``--json`` goes, the reader folder
(``reader_preflight``), the vault, the warehouse file and the free disk
(``storage_preflight``); the cluster's are in ``cluster_preflight``. Found later, inside
Dagster, the same mistakes used to come out as pages of stack traces after minutes of work.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from audit_pipeline.commands.usage_error import UsageError as UsageError  # re-exported


def check_run(config: Any, args: argparse.Namespace) -> tuple[str, str]:
    """Every check that needs no audit; returns the target and suite names."""
    if args.repeat < 1 or (args.min_fail is not None and not 1 <= args.min_fail <= args.repeat):
        raise UsageError("--repeat must be >= 1 and --min-fail between 1 and --repeat")
    if args.concurrency is not None and args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if args.processes < 1:
        raise UsageError("--processes must be at least 1")
    target, suite, prompt_ids = _check_target_and_suite(config, args)
    _check_judge_key(config)
    _check_chain(config)
    check_embedding_key(config)
    _check_waivers(config, prompt_ids)
    if args.json is not None:
        check_writable_file(args.json, "--json")
    check_reader(config)
    check_vault(config)
    check_warehouse(config)
    return target, suite


def _check_target_and_suite(config: Any, args: argparse.Namespace) -> tuple[str, str, list[str]]:
    """The target's and the suite's names, and the suite's prompt ids (fuzz variants too)."""
    from audit_pipeline.config import ConfigError
    from audit_pipeline.suites.errors import SuiteValidationError
    from audit_pipeline.suites.fuzz import fuzz_suite, parse_transformations
    from audit_pipeline.suites.loader import load_suite
    from audit_pipeline.targets.base import TargetConfigError, close_target
    from audit_pipeline.targets.kinds import build_target
    from audit_pipeline.targets.replay import check_recording
    from audit_pipeline.targets.target_config import VaultBotTargetConfig

    try:
        target, target_config = config.target_config(args.target)
        suite_name, suite_path = config.suite_path(args.suite)
        suite = load_suite(suite_path)
        suite = fuzz_suite(
            suite, (*suite.fuzz, *parse_transformations(getattr(args, "fuzz", None)))
        )
        selected = suite
        if args.category or args.ids:
            selected = suite.filter(categories=args.category or None, ids=args.ids or None)
            if not selected.prompts:
                raise UsageError(_nothing_selected(suite, args.category, args.ids))
        if not isinstance(target_config, VaultBotTargetConfig):
            built = build_target(target, target_config, base_dir=config.base_dir)
            try:
                for warning in check_recording(built, selected, suite):
                    print(f"warning: {warning}", file=sys.stderr)
            finally:
                close_target(built)
    except (ConfigError, SuiteValidationError, TargetConfigError, KeyError, ValueError) as error:
        raise UsageError(str(error)) from None
    return target, suite_name, [prompt.id for prompt in suite.prompts]


def _nothing_selected(suite: Any, categories: list[str], ids: list[str]) -> str:
    """Why ``--category`` and ``--id`` together select no prompt (each exists, in another
    category): an empty audit would block on a 0 % pass rate, telling CI the bot is bad when
    it was never asked anything."""
    flags = " ".join([*(f"--category {c}" for c in categories), *(f"--id {i}" for i in ids)])
    where = ", ".join(
        f"{prompt.id} is in {prompt.category!r}" for prompt in suite.prompts if prompt.id in ids
    )
    return (
        f"{flags} select no prompt of suite {suite.name!r}"
        + (f" ({where})" if where else "")
        + ": nothing to audit"
    )


def _check_waivers(config: Any, prompt_ids: list[str]) -> None:
    from audit_pipeline.scoring.waivers import WaiverError, load_waivers

    if config.waivers_path is not None:
        try:
            load_waivers(config.waivers_path, prompt_ids)
        except WaiverError as error:
            raise UsageError(str(error)) from None


def _check_judge_key(config: Any) -> None:
    from audit_pipeline.verification.configured import needs_judge

    judge = config.detection.judge
    if (
        needs_judge(config.detection)
        and judge.api_key_env
        and not os.environ.get(judge.api_key_env)
    ):
        raise UsageError(
            f"detection.judge.api_key_env names {judge.api_key_env}, which is not set: the "
            f"judge ({judge.model}) needs its key there (verifier {config.detection.verifier}, "
            f"extractor {config.detection.extractor})"
        )


def _check_chain(config: Any) -> None:
    """A chain that leaves out a stage the shipped figures were measured with is allowed (a
    team may mean to), but the figures do not apply to it: say so before the audit."""
    from audit_pipeline.verification.detection_settings import MEASURED_CORE

    names = [spec.name for spec in config.detection.chain()]
    missing = [name for name in MEASURED_CORE if name not in names]
    if missing:
        print(
            f"warning: detection.stages leaves out {', '.join(missing)}: the shipped verifier's "
            "figures were not measured for this chain, and claims no stage decides are "
            f"unverifiable (stages: {', '.join(names)})",
            file=sys.stderr,
        )


def check_embedding_key(config: Any) -> None:
    """A provider's embedding key is set: every command that indexes or searches the vault
    needs it, and unset it would surface as Dagster's error about the ``EnvVar``."""
    embedding = config.embedding
    if embedding.api_key_env and not os.environ.get(embedding.api_key_env):
        raise UsageError(
            f"embedding.api_key_env names {embedding.api_key_env}, which is not set: the "
            f"embedding model ({embedding.model}) needs its key there"
        )


def check_writable_file(path: Path, what: str) -> None:
    """``path`` can be created or replaced: its folder exists (or can be made) and takes a
    file. Checked with a probe file, since permission bits do not tell the whole story
    (read-only mounts, root)."""
    if path.is_dir():
        raise UsageError(f"{what} {path} is a directory, not a file")
    check_writable_folder(path.parent, f"{what} {path}")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{what} {path} cannot be written: permission denied")


def check_writable_folder(folder: Path, what: str) -> None:
    """``folder`` exists (or can be made) and a file can be created in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass
    except OSError as error:
        raise UsageError(f"{what} cannot be written: {error.strerror}") from None


def check_reader(config: Any) -> None:
    from audit_pipeline.commands.reader_preflight import check_reader as check_folder

    check_folder(config)


def check_vault(config: Any) -> None:
    from audit_pipeline.vault.documents import VaultError, check_vault

    try:
        check_vault(config.vault_path, config.vault.include, config.vault.follow_external_symlinks)
    except VaultError as error:
        raise UsageError(str(error)) from None


def check_warehouse(config: Any) -> None:
    """The warehouse opens for writing (created and migrated if new): a read-only file or
    folder, a damaged file, a disk without room, or a lock another process never lets go of,
    is reported now."""
    from audit_pipeline.commands.storage_preflight import check_free_space, check_warehouse_file
    from audit_pipeline.warehouse.store import Warehouse, WarehouseError

    warehouse = Warehouse(config.duckdb_path, config.storage.lock_timeout_s)
    check_writable_folder(warehouse.path.parent, f"the warehouse folder {warehouse.path.parent}")
    if warehouse.path.exists() and not os.access(warehouse.path, os.W_OK):
        raise UsageError(f"the warehouse {warehouse.path} is read-only")
    check_warehouse_file(warehouse.path)  # before anything is written into it
    check_free_space(
        {
            "the warehouse folder": warehouse.path.parent,
            "the index folder": config.lancedb_path.parent,
            "the response cache": config.cache_dir,
        },
        warehouse.path,
    )
    try:
        warehouse.migrate()
    except WarehouseError as error:
        raise UsageError(str(error)) from None
