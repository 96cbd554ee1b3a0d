"""Every configuration or input error: exit 2, one ``error:`` line, no stack dump (``-v`` shows
it), nothing written. CI reads exit 1 as "bad release", so a broken job must never look like
one."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from audit_pipeline_tests.cli.helpers import cli, cli_with_read_only
from audit_pipeline_tests.helpers import write_audit_config

RUN = ("run", "--no-progress", "--id", "SOC2-001")


def _break(case: str, root: Path, data: dict[str, Any]) -> tuple[tuple[str, ...], str]:
    """Apply ``case`` to the config ``data``; returns extra CLI arguments and the message."""
    vault = root / "other-vault"
    if case == "suite missing":
        data["suites"] = {"security-questionnaire": str(root / "nope.yaml")}
        return (), "file not found"
    if case == "suite is a directory":
        (root / "dir.yaml").mkdir()
        data["suites"] = {"security-questionnaire": str(root / "dir.yaml")}
        return (), "is a directory, not a suite file"
    if case == "judge key unset":
        data["detection"] = {"verifier": "llm", "judge": {"api_key_env": "AUDIT_TEST_UNSET"}}
        return (), "AUDIT_TEST_UNSET, which is not set"
    if case == "embedding key unset":
        data["embedding"] = {
            "provider": "litellm",
            "model": "openai/text-embedding-3-small",
            "api_key_env": "AUDIT_TEST_UNSET",
        }
        return (), "embedding.api_key_env names AUDIT_TEST_UNSET, which is not set"
    if case == "vault missing":
        data["vault"] = {"path": str(vault)}
        return (), "vault directory not found"
    if case == "vault is a file":
        vault.write_text("not a folder")
        data["vault"] = {"path": str(vault)}
        return (), "vault path is not a directory"
    if case == "vault empty":
        vault.mkdir()
        data["vault"] = {"path": str(vault)}
        return (), "has no non-empty file matching"
    if case == "json unwritable":
        return ("--json", "/proc/none/summary.json"), "--json /proc/none/summary.json cannot"
    if case == "json is a directory":
        return ("--json", str(root)), "is a directory, not a file"
    raise AssertionError(case)


CASES = (
    "suite missing",
    "suite is a directory",
    "judge key unset",
    "embedding key unset",
    "vault missing",
    "vault is a file",
    "vault empty",
    "json unwritable",
    "json is a directory",
)


def _assert_clean(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    lines = [line for line in result.stderr.splitlines() if not line.startswith("Loading")]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert message in lines[0]
    assert "Traceback" not in result.stderr and "dagster" not in result.stderr.lower()


@pytest.mark.parametrize("case", CASES)
def test_input_errors_exit_2_with_one_clean_line(tmp_path: Path, case: str) -> None:
    config = write_audit_config(tmp_path)
    data = yaml.safe_load(config.read_text())
    extra, message = _break(case, tmp_path, data)
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    result = cli(config, *RUN, *extra)
    _assert_clean(result, message)
    assert not (tmp_path / "warehouse" / "audit.duckdb").exists()  # nothing written


@pytest.mark.slow
def test_config_flag_wins_over_a_broken_local_audit_yaml_and_audit_config(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    good = write_audit_config(tmp_path / "good", sample_index_dir)
    work = tmp_path / "work"
    work.mkdir()
    (work / "audit.yaml").write_text("vault:\n  path: [\n")
    broken_env = work / "env.yaml"
    broken_env.write_text("gates: {\n")
    result = cli(good, *RUN, cwd=work, env={"AUDIT_CONFIG": str(broken_env)})
    assert result.returncode in (0, 1), result.stderr  # the audit ran and decided
    assert "DECISION:" in result.stdout


def test_a_locked_warehouse_is_reported_before_the_audit(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    """An analyst's open connection on the live file keeps every writer out."""
    from audit_pipeline.warehouse.store import Warehouse

    config = write_audit_config(tmp_path, sample_index_dir, storage=None)
    data = yaml.safe_load(config.read_text())
    warehouse = tmp_path / "warehouse" / "audit.duckdb"
    data["storage"] = {
        "duckdb_path": str(warehouse),
        "lancedb_path": str(tmp_path / "warehouse" / "vault.lance"),
        "lock_timeout_s": 1,
    }
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    Warehouse(warehouse).migrate()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1], read_only=True); "
            "print('open', flush=True); time.sleep(60)",
            str(warehouse),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        started = time.monotonic()
        result = cli(config, *RUN)
    finally:
        holder.kill()
        holder.wait()
    _assert_clean(result, "stayed locked by another process for 1 s")
    assert time.monotonic() - started < 30


@pytest.mark.slow
def test_a_read_only_warehouse_is_reported_before_the_audit(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    config = write_audit_config(tmp_path, sample_index_dir)
    folder = tmp_path / "warehouse"
    result = cli_with_read_only(folder, config, *RUN)
    if result is None:
        pytest.skip("cannot make a read-only folder here")
    _assert_clean(result, f"the warehouse folder {folder} cannot be written")


@pytest.mark.slow
def test_a_failing_step_is_one_line_and_verbose_shows_the_trace(tmp_path: Path) -> None:
    """A vault whose only file is binary passes the up-front check and fails inside Dagster."""
    vault = tmp_path / "binary-vault"
    vault.mkdir()
    (vault / "policy.md").write_bytes(b"\x00\x01binary")
    config = write_audit_config(tmp_path, vault={"path": str(vault)})
    quiet = cli(config, *RUN)
    _assert_clean(quiet, "vault_documents: ")
    assert "contains no readable document" in quiet.stderr
    loud = cli(config, *RUN, "-v")
    assert loud.returncode == 2
    assert "contains no readable document" in loud.stderr
    assert "Stack Trace" in loud.stderr or "Traceback" in loud.stderr
