"""Run the real ``audit-pipeline`` CLI in a subprocess, as a CI job would."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path


def cli(
    config: Path | None,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 600,
    cwd: Path | None = None,
    unset: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """The CLI in a child process; ``DAGSTER_HOME`` and the variables in ``unset`` are removed
    from its environment, ``env`` is added."""
    removed = {"DAGSTER_HOME", *unset}
    environment = {k: v for k, v in os.environ.items() if k not in removed}
    environment.update(env or {})
    command = [sys.executable, "-m", "audit_pipeline.cli"]
    if config is not None:
        command += ["--config", str(config)]
    return subprocess.run(
        [*command, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
        cwd=cwd,
    )


def cli_with_read_only(
    folder: Path, config: Path, *args: str, timeout: float = 600
) -> subprocess.CompletedProcess[str] | None:
    """The CLI run where ``folder`` is read-only; None when this machine cannot do that.

    Root ignores permission bits, so as root the folder is bind-mounted read-only in a private
    mount namespace of the child (nothing changes for the rest of the machine).
    """
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "audit_pipeline.cli", "--config", str(config), *args]
    if os.geteuid() == 0:
        if shutil.which("unshare") is None:
            return None
        remount = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
        command = ["unshare", "-m", "sh", "-c", remount, str(folder), *command]
    else:
        folder.chmod(0o555)
    environment = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, env=environment, timeout=timeout
        )
    finally:
        folder.chmod(0o755)
    if "mount" in result.stderr and "permission denied" in result.stderr.lower():
        return None
    return result


def assert_only_progress_lines(stderr: str) -> None:
    """As quiet as a run in one process: nothing on stderr but the progress lines (a line per
    stage, read from the run's events, so step processes and cluster workers report too)."""
    lines = stderr.strip().splitlines()
    assert lines and all(re.match(r"\[\s*\d+\.\ds\] ", line) for line in lines), stderr
    assert any(" verdicts done in " in line for line in lines), stderr
