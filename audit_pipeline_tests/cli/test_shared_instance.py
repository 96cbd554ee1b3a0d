"""`make ui` opens the Dagster instance the CLI records its runs in, with the same settings."""

from __future__ import annotations

import json
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
    assert yaml.safe_load((REPO_ROOT / "dagster_instance.yaml").read_text()) == INSTANCE_SETTINGS


def test_make_ui_prints_a_lineage_url_that_expands_every_asset_group() -> None:
    """The UI collapses every asset group on a first visit; the URL `make ui` prints names them
    all, so the whole audit's lineage is open at once. The groups come from the definitions'
    snapshot, which its own test keeps equal to the code."""
    makefile = (REPO_ROOT / "Makefile").read_text()
    found = re.search(r"^GROUPS := (.+)$", makefile, re.MULTILINE)
    assert found, "the Makefile lists the asset groups of the lineage URL"
    snapshot = REPO_ROOT / "audit_pipeline_tests" / "defs" / "definitions_snapshot.json"
    groups = {asset["group"] for asset in json.loads(snapshot.read_text())["assets"].values()}
    assert set(found.group(1).split()) == groups
    assert '@echo "ui: the whole audit\'s lineage: $(LINEAGE_URL)"' in makefile
    assert "expanded=$(subst $(space),$(comma),$(addprefix global@global:,$(GROUPS)))" in makefile
