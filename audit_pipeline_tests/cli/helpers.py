"""Run the real ``audit-pipeline`` CLI in a subprocess, as a CI job would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def cli(
    config: Path | None,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 600,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
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
