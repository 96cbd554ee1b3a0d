"""The verifier chain in whole audits (issue 30): a stage from another installed package runs in
the chain and names its verdicts; a changed stage version carries no verdict over; the audit row
keeps the chain that judged it.

The plugin is a real package, installed by pip into a folder put on ``sys.path``, registered
through the ``audit_pipeline.stages`` entry-point group as any team's package would be.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from dagster import DagsterInstance

from audit_pipeline.cli import main
from audit_pipeline.config import load_config
from audit_pipeline.defs.graph import build_definitions
from audit_pipeline.verification.stages import registry
from audit_pipeline.verification.stages.base import REGISTERED
from audit_pipeline.verification.stages.specifics import SpecificsCheck
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.policy_workspace import write_policy_workspace

DEFAULT = [
    "specifics",
    "polarity",
    "rewrite",
    "entailment",
    "model",
    "staleness",
    "glossary",
    "mark",
]

PLUGIN_PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "audit-stage-banned-phrases"
version = "0.1.0"

[project.entry-points."audit_pipeline.stages"]
banned_phrases = "banned_phrases:BannedPhrases"

[tool.setuptools]
py-modules = ["banned_phrases"]
"""

pytestmark = pytest.mark.slow

PLUGIN_MODULE = '''\
"""A team's own check: its bot must never say these phrases."""

from pydantic import Field

from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.stages.cases import ClaimCase
from audit_pipeline.verification.stages.check import Check, CheckParams, Flaw


class BannedParams(CheckParams):
    phrases: list[str] = Field(default_factory=list)


class BannedPhrases(Check[BannedParams]):
    name = "banned_phrases"
    version = "1"
    Params = BannedParams

    def find(self, case: ClaimCase) -> Flaw | None:
        said = [p for p in self.params.phrases if p.lower() in case.text.lower()]
        return Flaw(Label.UNSUPPORTED, f"says {said[0]!r}, which the team bans") if said else None
'''


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The plugin package built and installed by pip into ``site``, which is put on sys.path."""
    source = tmp_path / "plugin"
    source.mkdir()
    (source / "pyproject.toml").write_text(PLUGIN_PYPROJECT)
    (source / "banned_phrases.py").write_text(PLUGIN_MODULE)
    site = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    offline = ["--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*pip, *offline, "--target", str(site), str(source)], check=True)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(registry, "_loaded", False)
    yield site
    REGISTERED.pop("banned_phrases", None)
    registry._loaded = False  # the next lookup reads the entry points again


def _audit(config_path: Path, instance: DagsterInstance) -> dict[str, object]:
    """One full audit of the recorded answers; the verdicts asset's metadata."""
    result = (
        build_definitions(config_path)
        .resolve_job_def("full_audit")
        .execute_in_process(partition_key="recorded", instance=instance)
    )
    assert result.success
    events = result.asset_materializations_for_node("verdicts")
    return {key: value.value for key, value in events[-1].metadata.items()}


def test_a_stage_from_an_installed_package_runs_in_the_audit(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stages = [*DEFAULT[:4], {"banned_phrases": {"phrases": ["or higher"]}}, *DEFAULT[4:]]
    config_path = write_policy_workspace(tmp_path / "work", stages=stages)
    (tmp_path / "dagster").mkdir()
    metadata = _audit(config_path, DagsterInstance.local_temp(str(tmp_path / "dagster")))
    assert metadata["decided_by_banned_phrases"] == 1
    assert "banned_phrases 1" in str(metadata["verifier_stages"])

    warehouse = Warehouse(load_config(config_path).duckdb_path)
    rows = warehouse.query(
        "SELECT c.prompt_id, v.label, v.decided_by, v.justification FROM verdicts v "
        "JOIN claims c USING (audit_id, claim_id) ORDER BY c.prompt_id"
    )
    banned = rows[rows.decided_by == "banned_phrases"]
    assert list(banned.prompt_id) == ["ENC-1"]  # "Connections require TLS 1.2 or higher."
    assert list(banned.label) == ["unsupported"]
    assert banned.justification.iloc[0].startswith("Unsupported (banned_phrases): says 'or higher'")
    chain = json.loads(warehouse.scalar("SELECT verifier_chain FROM audits"))
    assert [s["name"] for s in chain["stages"]][4] == "banned_phrases"
    assert chain["stages"][4]["params"]["phrases"] == ["or higher"]

    assert main(["--config", str(config_path), "verifier"]) == 0
    listed = capsys.readouterr().out
    assert any(line.split()[:3] == ["5", "banned_phrases", "1"] for line in listed.splitlines())


def test_a_bumped_stage_version_carries_no_verdict_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_path = write_policy_workspace(tmp_path / "work")
    (tmp_path / "dagster").mkdir()
    instance = DagsterInstance.local_temp(str(tmp_path / "dagster"))
    first = _audit(config_path, instance)
    assert first["carried_over"] == 0
    # The same answers, evidence and chain: every verdict is carried over.
    again = _audit(config_path, instance)
    assert again["carried_over"] == again["claims"] == first["claims"]

    monkeypatch.setattr(SpecificsCheck, "version", str(int(SpecificsCheck.version) + 1))
    bumped = _audit(config_path, instance)
    assert bumped["carried_over"] == 0
    assert bumped["verified_now"] == first["claims"]
    assert bumped["verifier"] != first["verifier"]
