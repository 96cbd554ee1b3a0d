"""`make ui` opens the Dagster instance the CLI records its runs in, with the same settings."""

from __future__ import annotations

import re

import yaml

from audit_pipeline.commands.run_audit import INSTANCE_SETTINGS
from audit_pipeline.config import load_config
from audit_pipeline_tests.helpers import REPO_ROOT


def test_the_makefiles_dagster_home_is_the_clis_default_instance() -> None:
    makefile = (REPO_ROOT / "Makefile").read_text()
    found = re.search(r"^DAGSTER_HOME := \$\(CURDIR\)/(\S+)$", makefile, re.MULTILINE)
    assert found, "the Makefile sets DAGSTER_HOME under the repository"
    default = load_config(REPO_ROOT / "audit.yaml")
    assert REPO_ROOT / found.group(1) == default.duckdb_path.parent / "dagster_home"


def test_the_cli_creates_the_instance_with_the_repositorys_settings() -> None:
    assert yaml.safe_load((REPO_ROOT / "dagster.yaml").read_text()) == INSTANCE_SETTINGS
