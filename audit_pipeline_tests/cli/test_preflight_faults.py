"""Every misconfiguration is found before the first stage (issue 33, rows 2, 5, 6, 7, 8): the
reader folder, the cluster's address and size, the broker URL, a selection of no prompt, a
damaged warehouse and a full disk each end in one ``error:`` line naming the file, key or
address, exit 2, nothing on stdout (no library prompt) and no audit started."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from audit_pipeline.cli import main
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.policy_workspace import write_policy_workspace

BROKER_ENV = "AUDIT_CELERY_BROKER"
NLI_LABELS = {"0": "entailment", "1": "neutral", "2": "contradiction"}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_policy_workspace(tmp_path_factory.mktemp("preflight") / "ws")


def _with(config: Path, name: str, **sections: dict) -> Path:
    """A copy of ``config`` (same vault, warehouse and outputs) with ``sections`` merged in."""
    settings = yaml.safe_load(config.read_text())
    for key, value in sections.items():
        settings[key] = {**settings.get(key, {}), **value}
    path = config.with_name(f"{name}.yaml")
    path.write_text(yaml.safe_dump(settings))
    return path


def _refused(capsys: pytest.CaptureFixture[str], config: Path, *args: str, contains: str) -> str:
    """Run the CLI in this process; it must refuse with one line holding ``contains``."""
    code = main(["--config", str(config), "run", "--no-progress", *args])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == ""  # no prompt, no partial summary
    [line] = err.strip().splitlines()
    assert line.startswith("error: ") and contains in line, line
    assert "Error:" not in line  # no internal exception class names
    warehouse = Warehouse(yaml.safe_load(config.read_text())["storage"]["duckdb_path"])
    if warehouse.path.exists():
        assert warehouse.scalar("SELECT count(*) FROM audits") == 0
    return line


def _reader_folder(root: Path, config: dict | str | None, weights: bytes | None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    if isinstance(config, dict):
        (root / "config.json").write_text(json.dumps(config))
    elif isinstance(config, str):
        (root / "config.json").write_text(config)
    if weights is not None:
        (root / "model.safetensors").write_bytes(weights)
    return root


BERT_NLI = {
    "model_type": "bert",
    "architectures": ["BertForSequenceClassification"],
    "id2label": NLI_LABELS,
}


@pytest.mark.parametrize(
    ("name", "config", "weights", "message"),
    [
        ("missing", None, None, "does not exist or is not a folder"),
        ("empty", None, None, "config.json is missing"),
        ("broken", '{"model_type": "bert",', b"", "config.json is not valid JSON (line 1"),
        (
            "corrupt",
            BERT_NLI,
            b"\xff" * 64,
            "model.safetensors is not a readable safetensors file",
        ),
        (
            "remote-code",
            {
                "model_type": "shiny_nli",
                "architectures": ["ShinyForSequenceClassification"],
                "auto_map": {"AutoModelForSequenceClassification": "modeling_shiny.Shiny"},
                "id2label": NLI_LABELS,
            },
            b"",
            "asks for the model's own code (auto_map",
        ),
    ],
    ids=["missing", "empty", "broken-config", "corrupt-weights", "remote-code"],
)
def test_the_reader_folder_is_checked_before_the_audit(
    workspace: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    config: dict | str | None,
    weights: bytes | None,
    message: str,
) -> None:
    folder = workspace.parent / "readers" / name
    if name != "missing":
        _reader_folder(folder, config, weights)
    configured = _with(
        workspace, f"reader-{name}", detection={"reader": {"kind": "nli", "path": str(folder)}}
    )
    line = _refused(capsys, configured, contains=message)
    assert str(folder) in line  # names the folder or the file in it


@pytest.mark.parametrize(
    ("args", "broker", "message"),
    [
        (("--executor", "dask", "--workers", "1000"), None, "--workers 1000 is more than"),
        (
            ("--executor", "dask", "--scheduler", "tcp://127.0.0.1:1"),
            None,
            "--scheduler tcp://127.0.0.1:1 cannot be reached (connection refused",
        ),
        (
            ("--executor", "celery"),
            "redis://:hunter2@127.0.0.1:1/0",
            "$AUDIT_CELERY_BROKER redis://:***@127.0.0.1:1/0 cannot be reached",
        ),
        (
            ("--executor", "celery"),
            "notaurl",
            "$AUDIT_CELERY_BROKER is 'notaurl', which is not a broker URL",
        ),
    ],
    ids=["too-many-workers", "dead-scheduler", "closed-broker-port", "broker-not-a-url"],
)
def test_the_cluster_is_checked_before_the_audit(
    workspace: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
    broker: str | None,
    message: str,
) -> None:
    if broker is None:
        monkeypatch.delenv(BROKER_ENV, raising=False)
    else:
        monkeypatch.setenv(BROKER_ENV, broker)
    line = _refused(capsys, workspace, *args, contains=message)
    assert "hunter2" not in line


def test_a_selection_of_no_prompt_is_a_usage_error(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both exist, in different categories: an empty audit would block on a 0 % pass rate."""
    _refused(
        capsys,
        workspace,
        "--category",
        "enc",
        "--id",
        "RET-1",
        contains="--category enc --id RET-1 select no prompt of suite 'suite' (RET-1 is in 'ret')",
    )


def test_a_truncated_warehouse_is_refused_before_anything_is_written(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    warehouse = tmp_path / "cut" / "audit.duckdb"
    Warehouse(warehouse).migrate()
    size = warehouse.stat().st_size
    with warehouse.open("r+b") as handle:
        handle.truncate(size // 2)
    configured = _with(workspace, "truncated", storage={"duckdb_path": str(warehouse)})
    code = main(["--config", str(configured), "run", "--no-progress"])
    _, err = capsys.readouterr()
    assert code == 2
    [line] = err.strip().splitlines()
    assert line.startswith(f"error: the warehouse {warehouse} ")
    assert "damaged" in line or "cannot be opened" in line
    assert warehouse.stat().st_size == size // 2  # not written to


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A folder where the CLI child sees a 1 MiB file system (tmpfs in a private mount
    namespace; skipped where this machine cannot mount one)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("mounting a small file system needs root and unshare")
    folder = tmp_path / "tiny"
    folder.mkdir()
    yield folder


@pytest.mark.slow
def test_a_full_disk_is_refused_before_the_audit(workspace: Path, tiny_disk: Path) -> None:
    configured = _with(
        workspace, "full", storage={"duckdb_path": str(tiny_disk / "warehouse" / "audit.duckdb")}
    )
    command = [sys.executable, "-m", "audit_pipeline.cli", "--config", str(configured)]
    mount = 'mount -t tmpfs -o size=1m tmpfs "$0" && exec "$@"'
    result = subprocess.run(
        ["unshare", "-m", "sh", "-c", mount, str(tiny_disk), *command, "run", "--no-progress"],
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"},
    )
    if "mount" in result.stderr and "ermission denied" in result.stderr:
        pytest.skip("this machine does not allow a private mount")
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.strip().splitlines()
    folder = tiny_disk / "warehouse"
    assert line.startswith(f"error: the warehouse folder {folder} has "), line
    assert "MiB free on its disk; an audit needs about" in line


def test_the_real_cli_refuses_a_dead_scheduler_naming_it(workspace: Path) -> None:
    """The same refusal from the installed entry point, in a process of its own."""
    run = cli(workspace, "run", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1")
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.strip().splitlines() == [
        "error: --scheduler tcp://127.0.0.1:1 cannot be reached (connection refused: nothing "
        "listens on that port)"
    ]
