"""One release decision on every surface (issue 23): the CLI's last line, ``--json``, the exit
code, the report, the ``audits`` row and the Dagster check show the same decision and rule.

Two real CLI audits of the recorded answers: one whose risk is in the deploy zone (the limits
are raised so it must be) while a gate fails, and one that is incomplete (half its turns have
no recorded answer) while its pass rate fails too. Which gate fails is the verifier's business;
what is asserted is that every surface tells the same story.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from dagster import DagsterEventType, DagsterInstance, RunsFilter

from audit_pipeline.commands.run_audit import instance
from audit_pipeline.config import load_config
from audit_pipeline.defs.scoring_report_assets import DECISION_TAG, RULE_TAG
from audit_pipeline.reports.formatting import decision_sentence
from audit_pipeline.scoring.gates import GateResult
from audit_pipeline.scoring.rules import release_decision
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.helpers import write_audit_config

pytestmark = pytest.mark.slow


# Any risk is in the deploy zone; a turn in two without an answer is incomplete, a claim in
# three unverifiable is not. The gates keep their defaults.
SETTINGS = {"scoring": {"deploy_max_risk": 0.98, "warn_max_risk": 0.99, "incomplete_share": 0.4}}
AUDITS = {
    # ENC-002's recorded answer says "quarterly", on its must_not_appear list.
    "gated": ("SOC2-001", "ENC-002"),
    "incomplete": ("SOC2-001", "ISO-001"),  # ISO-001 has no recorded answer
}


@dataclass(frozen=True)
class Audited:
    config: Path
    run: subprocess.CompletedProcess[str]
    summary: dict[str, Any]

    @property
    def decision(self) -> str:
        return str(self.summary["decision"])

    @property
    def rule(self) -> str:
        return str(self.summary["rule"])


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory, sample_index_dir: Path) -> dict[str, Audited]:
    root = tmp_path_factory.mktemp("one-decision")
    config = write_audit_config(root, sample_index_dir, **SETTINGS)
    found = {}
    for name, ids in AUDITS.items():
        out = root / f"{name}.json"
        args = [arg for prompt_id in ids for arg in ("--id", prompt_id)]
        quiet = () if name == "gated" else ("--no-progress",)  # gated: progress lines too
        run = cli(config, "run", *quiet, *args, "--json", str(out))
        assert out.exists(), run.stderr
        found[name] = Audited(config, run, json.loads(out.read_text()))
    return found


def test_the_json_decision_is_the_worst_gate_and_the_risk_zone_stays_visible(
    audited: dict[str, Audited],
) -> None:
    gated, incomplete = audited["gated"], audited["incomplete"]
    for audit in (gated, incomplete):
        gates = [GateResult(**gate) for gate in audit.summary["gates"]]
        assert str(release_decision(gates)) == f"{audit.decision}: {audit.rule}"
        risk = next(gate for gate in audit.summary["gates"] if gate["name"] == "risk")
        assert risk["status"] == "pass"  # deploy zone ...
    # ... yet a failed gate blocks, and the rule names it.
    assert gated.decision == "block" and gated.rule.startswith("gate ")
    failed = [g for g in gated.summary["gates"] if g["status"] == "error"]
    assert gated.rule == f"gate {failed[0]['name']} {failed[0]['detail']}"
    # Incomplete outranks the pass rate its missing answer fails.
    assert incomplete.decision == "incomplete" and "turns got no answer" in incomplete.rule
    assert any(g["status"] == "error" for g in incomplete.summary["gates"][1:])


def test_the_cli_ends_on_the_decision_and_its_rule(audited: dict[str, Audited]) -> None:
    for audit in audited.values():
        last = audit.run.stdout.strip().splitlines()[-1]
        assert last == f"DECISION: {audit.decision.upper()} ({audit.rule})"


def test_the_exit_code_follows_the_decision(audited: dict[str, Audited]) -> None:
    assert audited["gated"].run.returncode == 1, audited["gated"].run.stderr
    assert audited["incomplete"].run.returncode == 2, audited["incomplete"].run.stderr


def test_the_report_badge_and_sentence(audited: dict[str, Audited]) -> None:
    for audit in audited.values():
        report = Path(audit.run.stdout.split("report: ")[1].split()[0])
        page = html.unescape(report.read_text())
        assert f'<span class="badge {audit.decision}">{audit.decision}</span>' in page
        assert decision_sentence(audit.decision, audit.rule) in page
        markdown = (report.parent / "report.md").read_text()
        assert f"{audit.decision.upper()}**" in markdown
        assert decision_sentence(audit.decision, audit.rule) in html.unescape(markdown)


def test_the_audits_row(audited: dict[str, Audited]) -> None:
    config = audited["gated"].config
    warehouse = Warehouse(load_config(config).duckdb_path)
    listed = cli(config, "audits").stdout.splitlines()
    for audit in audited.values():
        row = warehouse.query(
            "SELECT decision, decision_rule FROM audits WHERE audit_id = ?",
            [audit.summary["audit_id"]],
        ).iloc[0]
        assert (row["decision"], row["decision_rule"]) == (audit.decision, audit.rule)
        line = next(line for line in listed if line.startswith(audit.summary["audit_id"]))
        assert f" {audit.decision} " in line and audit.rule[:50] in line
        assert not re.search(r"\d\.\d{4,}", line)  # numbers rounded
        risk = audit.summary["risk"]
        assert risk is None or f"{risk:.3f}" in line


def test_the_dagster_check(audited: dict[str, Audited]) -> None:
    config = load_config(audited["gated"].config)
    runs = instance(config)
    warehouse = Warehouse(config.duckdb_path)
    for audit in audited.values():
        run_id = warehouse.scalar(
            "SELECT dagster_run_id FROM audits WHERE audit_id = ?", [audit.summary["audit_id"]]
        )
        checks = {
            record.dagster_event.event_specific_data.check_name: (
                record.dagster_event.event_specific_data
            )
            for record in runs.all_logs(run_id, of_type=DagsterEventType.ASSET_CHECK_EVALUATION)
            if record.dagster_event is not None
        }
        release = checks["release_decision"]
        whose = f"target recorded, audit {audit.summary['audit_id']}"
        assert release.description == f"{audit.decision}: {audit.rule} ({whose})"
        assert release.metadata["decision"].value == audit.decision
        assert release.partition == "recorded"  # per target: another's audit leaves it alone
        assert release.passed is False
        assert checks["gate_risk"].passed is True  # the risk zone, a figure of its own
        # The Runs list shows what the CLI's audit decided, as for a UI or scheduled run.
        run = runs.get_run_by_id(run_id)
        assert run is not None
        assert run.tags[DECISION_TAG] == audit.decision and run.tags[RULE_TAG] == audit.rule


def test_the_console_names_each_failing_prompt_after_the_gates(
    audited: dict[str, Audited],
) -> None:
    for audit in audited.values():
        out = audit.run.stdout
        failed = list(dict.fromkeys(f["prompt_id"] for f in audit.summary["failures"]))
        assert failed, "both audits fail a prompt"
        listed = out.split(f"failing prompts ({len(failed)}):\n")[1].split("\n\n")[0]
        assert out.index("failing prompts") > out.index("hallucinations ")  # after the gates
        for prompt in failed:
            first = next(f for f in audit.summary["failures"] if f["prompt_id"] == prompt)
            line = next(line for line in listed.splitlines() if line.split()[0] == prompt)
            assert f"{first['assertion']}:" in line


STAGES = ("vault_documents", "responses", "claims", "verdicts", "assertion_results", "risk_scores")


def test_without_a_terminal_progress_is_a_line_per_stage(audited: dict[str, Audited]) -> None:
    """stderr is a pipe here, as under make or in CI: no bar, a line per stage instead."""
    stderr = audited["gated"].run.stderr
    # Before anything runs: what will be asked, of whom, and how long it takes.
    first = "answering 2 turns with target recorded (replay; recorded answers, no calls: seconds)"
    assert re.fullmatch(r"\[\s+0\.\ds\] " + re.escape(first), stderr.splitlines()[0])
    stamped = [line for line in stderr.splitlines() if re.match(r"\[\s*\d+\.\ds\] ", line)]
    done = {
        found.group(1)
        for line in stamped
        if (found := re.search(r"\] (\w+) done in \d+\.\ds", line))
    }
    assert set(STAGES) <= done, stderr
    responses = next(line for line in stamped if "responses done in" in line)
    assert re.search(r": .*responses 2\b", responses)  # with the stage's counts
    assert any(re.search(r"\] responses 2/2$", line) for line in stamped)
    assert "\r" not in stderr and "it/s" not in stderr  # no progress bar, ours or a library's
    assert audited["incomplete"].run.stderr.count("done in") == 0  # --no-progress: none


def test_the_cli_run_is_in_the_instance_the_ui_opens_under_full_audit(
    audited: dict[str, Audited], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI ran without DAGSTER_HOME; the UI opens <storage dir>/dagster_home (the
    Makefile's DAGSTER_HOME, see test_shared_instance.py) and finds the run by its job."""
    config = load_config(audited["gated"].config)
    monkeypatch.setenv("DAGSTER_HOME", str(config.duckdb_path.parent / "dagster_home"))
    ui = DagsterInstance.get()  # as `dagster dev` finds its instance
    warehouse = Warehouse(config.duckdb_path)
    run_ids = set()
    for audit in audited.values():
        run_id = warehouse.scalar(
            "SELECT dagster_run_id FROM audits WHERE audit_id = ?", [audit.summary["audit_id"]]
        )
        run_ids.add(run_id)
        run = ui.get_run_by_id(run_id)
        assert run is not None and run.job_name == "full_audit"
        assert run.tags["dagster/partition"] == "recorded"
    listed = {run.run_id for run in ui.get_runs(RunsFilter(job_name="full_audit"))}
    assert run_ids <= listed


def test_post_evaluate_answers_with_the_same_decision_rule_and_gates(
    audited: dict[str, Audited],
) -> None:
    """What ``POST /evaluate`` returns (``service.evaluate``, the route's body): the whole
    suite of the recording, so incomplete, with the rule, the gates and the audits row's pair."""
    from audit_pipeline.service.evaluate import evaluate

    config = audited["gated"].config
    body = evaluate(config, "recorded", None)
    gates = [GateResult(**gate) for gate in body["gates"]]
    assert str(release_decision(gates)) == f"{body['decision']}: {body['rule']}"
    assert body["decision"] == "incomplete" and body["incomplete"]
    row = Warehouse(load_config(config).duckdb_path).query(
        "SELECT decision, decision_rule FROM audits WHERE audit_id = ?", [body["audit_id"]]
    )
    assert row.values.tolist() == [[body["decision"], body["rule"]]]
