"""The installed package must import without the dev extras (issue 13, hygiene).

matplotlib, pytest, the notebook tools and the linters are installed by ``pip install -e
'.[dev]'`` only: a module of ``audit_pipeline`` that imports one at import time works on a
developer's machine and breaks on a deployment. Every module is imported in a fresh
interpreter and none of the dev extras' top-level modules may have been loaded.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions

import pytest

from audit_pipeline_tests.helpers import REPO_ROOT

pytestmark = pytest.mark.slow

_IMPORT_EVERYTHING = """
import importlib, pkgutil, sys
import audit_pipeline
for module in pkgutil.walk_packages(audit_pipeline.__path__, "audit_pipeline."):
    importlib.import_module(module.name)
print("\\n".join(sorted({name.split(".")[0] for name in sys.modules})))
"""


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _dev_only_modules() -> set[str]:
    """Top-level import names of the dev extras that are not also runtime dependencies."""
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]

    def names(requirements: list[str]) -> set[str]:
        return {_normalise(re.split(r"[\s<>=!~\[;]", r, maxsplit=1)[0]) for r in requirements}

    dev = names(project["optional-dependencies"]["dev"]) - names(project["dependencies"])
    return {
        module
        for module, dists in packages_distributions().items()
        if any(_normalise(dist) in dev for dist in dists)
    }


def test_no_module_of_the_package_imports_a_dev_only_dependency() -> None:
    dev_only = _dev_only_modules()
    assert {"matplotlib", "pytest", "importlinter"} <= dev_only  # the mapping found them

    loaded = subprocess.run(
        [sys.executable, "-c", _IMPORT_EVERYTHING],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()

    assert sorted(set(loaded) & dev_only) == []
