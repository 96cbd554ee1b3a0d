"""``audit-pipeline diff`` compares the prompts both audits asked, with one risk definition.

The session's two audits of the recorded answers: the first asked the 12 recorded prompts, the
second the whole suite (most of it unanswered, so failing). Diffing them must not call a prompt
"fixed" that one audit never asked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from audit_pipeline.commands.diff_command import scope_notices
from audit_pipeline.config import load_config
from audit_pipeline.scoring.audit_outcome import AuditOutcome
from audit_pipeline.warehouse.risk_tables import asked_prompts, prompt_risks
from audit_pipeline.warehouse.store import Warehouse


def test_diff_compares_only_prompts_asked_in_both_and_rounds_every_number(
    audited_config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from audit_pipeline.cli import main

    warehouse = Warehouse(load_config(audited_config).duckdb_path)
    small, full = warehouse.query(
        "SELECT audit_id FROM audits WHERE status = 'finished' ORDER BY started_at LIMIT 2"
    )["audit_id"]
    out = tmp_path / "diff.json"
    capsys.readouterr()

    code = main(["--config", str(audited_config), "diff", full, small, "--json", str(out)])

    printed = capsys.readouterr().out
    assert code == 0, printed
    diff = json.loads(out.read_text())
    asked_full, asked_small = (
        set(asked_prompts(warehouse, full)),
        set(asked_prompts(warehouse, small)),
    )
    assert asked_small < asked_full  # the test means something only if B asked fewer
    assert diff["asked_in_both"] == len(asked_small)
    assert set(diff["only_in_a"]) == asked_full - asked_small and diff["only_in_b"] == []
    compared = {*diff["fixed"], *diff["new_failures"], *diff["still_failing"]}
    assert compared <= asked_small
    assert f"only in A ({len(asked_full - asked_small)})" in printed
    # One risk definition: the mean prompt risk over the prompts answered in both.
    risks = prompt_risks(warehouse, full), prompt_risks(warehouse, small)
    paired = set(risks[0]) & set(risks[1])
    before = sum(risks[0][p] for p in paired) / len(paired)
    assert diff["risk_change"]["before"] == round(before, 4)
    assert f"risk change: risk {before:.3f} ->" in printed
    assert "None" not in printed and not re.search(r"\d\.\d{4,}", printed)


def _outcome(target: str, suite: str) -> AuditOutcome:
    return AuditOutcome(f"a-{target}", target, suite, "deploy", 0.0, {}, {}, [], [])


def test_diff_of_two_targets_or_suites_says_so_before_the_figures() -> None:
    same = scope_notices(_outcome("bot", "suite"), _outcome("bot", "suite"))
    assert same == []
    other = scope_notices(_outcome("bot", "suite"), _outcome("bot-v2", "suite-b"))
    assert other == [
        "note: the audits are of different targets (bot -> bot-v2): the change compares two "
        "systems, not one system over time",
        "note: the audits ran different suites (suite -> suite-b)",
    ]
