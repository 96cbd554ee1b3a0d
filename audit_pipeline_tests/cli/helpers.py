"""Run the real ``audit-pipeline`` CLI: in this process (``cli``, the default: the same
``main(argv)`` a console script calls, with the models the session loaded already) or in a child
process (``cli_process``) where the process itself is what a test proves: quiet start-up, signals,
a read-only mount, several audits at once."""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path


@contextlib.contextmanager
def _environment(removed: set[str], added: dict[str, str]) -> Iterator[None]:
    """``os.environ`` without ``removed`` and with ``added`` for the call, then as it was."""
    saved = dict(os.environ)
    for name in removed:
        os.environ.pop(name, None)
    os.environ.update(added)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def cli(
    config: Path | None,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 600,
    cwd: Path | None = None,
    unset: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """``audit-pipeline`` called in this process, its output and exit code returned as a child
    process's would be; ``DAGSTER_HOME`` and the variables in ``unset`` are removed from the
    environment for the call, ``env`` is added. ``timeout`` is accepted for the signature's
    sake (an in-process call cannot be cut short)."""
    from audit_pipeline.cli import main

    argv = [*(["--config", str(config)] if config is not None else []), *args]
    stdout, stderr = io.StringIO(), io.StringIO()
    previous = Path.cwd()
    with _environment({"DAGSTER_HOME", *unset}, env or {}):
        if cwd is not None:
            os.chdir(cwd)
        try:
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                try:
                    code = main(argv)
                except SystemExit as exit_:  # argparse's usage errors
                    code = exit_.code if isinstance(exit_.code, int) else 2
        finally:
            os.chdir(previous)
    return subprocess.CompletedProcess(argv, code, stdout.getvalue(), stderr.getvalue())


def cli_process(
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
