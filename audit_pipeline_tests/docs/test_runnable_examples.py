"""Every shell example the README and the documentation mark runnable (an HTML comment
``<!-- runnable -->`` on the line before the fenced block) runs and succeeds.

They run in a workspace laid out like a fresh clone after ``make audit``: ``.venv`` is this
environment, ``audit.yaml`` the session's audited configuration (three real audits of the
recorded answers) and ``data/warehouse`` its warehouse, so an example that reads the history
finds real audits. Runnable examples are kept to commands of seconds.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from audit_pipeline.config import load_config
from audit_pipeline_tests.helpers import REPO_ROOT

MARK = re.compile(r"^<!-- runnable -->$", re.M)  # alone on its line: prose may name it
_BLOCK = re.compile(r"^<!-- runnable -->\n```(?:bash|sh|shell)\n(.*?)^```", re.M | re.S)


def runnable_examples() -> list[tuple[str, str]]:
    """(``file:line``, script) of every marked block, README first."""
    files = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").rglob("*.md"))]
    found = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{path.relative_to(REPO_ROOT)}:{line}", match.group(1)))
        marks = len(MARK.findall(text))
        assert marks == len(_BLOCK.findall(text)), f"{path}: a mark without a bash block"
    return found


EXAMPLES = runnable_examples()


def test_the_readme_and_the_docs_have_runnable_examples() -> None:
    where = [name.split(":")[0] for name, _ in EXAMPLES]
    assert "README.md" in where
    assert len(EXAMPLES) >= 4


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory, audited_config: Path) -> Path:
    root = tmp_path_factory.mktemp("fresh-clone")
    (root / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    shutil.copy(audited_config, root / "audit.yaml")
    (root / "data").mkdir()
    (root / "data" / "warehouse").symlink_to(load_config(audited_config).duckdb_path.parent)
    return root


@pytest.mark.parametrize("script", [s for _, s in EXAMPLES], ids=[n for n, _ in EXAMPLES])
@pytest.mark.slow
def test_a_runnable_example_runs(workspace: Path, script: str) -> None:
    environment = {**os.environ, "AUDIT_CONFIG": str(workspace / "audit.yaml")}
    environment.pop("DAGSTER_HOME", None)
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=workspace,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip(), "an example that prints nothing shows a reader nothing"
