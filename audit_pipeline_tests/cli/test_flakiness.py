"""The flakiness protocol of ``--repeat N``: each prompt's fail count and class."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit_pipeline.commands.run_audit import RunOptions, combine_repeats, real_failure_threshold
from audit_pipeline.commands.run_command import repeat_options
from audit_pipeline.scoring.audit_outcome import AuditOutcome
from audit_pipeline.scoring.gates import GateResult
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.helpers import write_audit_config


def _outcome(failing: set[str]) -> AuditOutcome:
    failures = [
        {"prompt_id": p, "category": "c", "turn": 0, "assertion": "behavior", "detail": "x"}
        for p in sorted(failing)
    ]
    status = "error" if failing else "pass"
    return AuditOutcome(
        audit_id="a",
        target="t",
        suite="s",
        decision="block" if failing else "deploy",
        risk=None,
        summary={"total": 3},
        by_category={},
        failures=failures,
        gates=[GateResult("hallucinations", status, len(failing), "")],  # type: ignore[arg-type]
    )


def test_real_from_60_percent_of_runs_flaky_below() -> None:
    assert [real_failure_threshold(n) for n in (1, 2, 3, 4, 5, 10)] == [1, 2, 2, 3, 3, 6]
    runs = [{"A", "B"}, {"A"}, {"A"}, set(), set()]  # A fails 3/5, B 1/5, C never

    combined = combine_repeats(
        [_outcome(f) for f in runs], real_failure_threshold(5), ["A", "B", "C"]
    )

    prompts = combined["prompts"]
    assert {p: (i["failed_runs"], i["class"]) for p, i in prompts.items()} == {
        "A": (3, "real"),
        "B": (1, "flaky"),
        "C": (0, "pass"),
    }
    assert combined["failed"] == 1 and combined["decision"] == "block"
    assert combined["gates"][0].status == "error"  # 3 of 5 runs outside the limit
    # Two failures in five is flaky: the gate and the decision hold.
    two = combine_repeats([_outcome(f) for f in [{"A"}, {"A"}, set(), set(), set()]], 3)
    assert two["prompts"]["A"]["class"] == "flaky" and two["decision"] == "deploy"
    assert two["gates"][0].status == "pass"


@pytest.mark.slow
def test_repeat_writes_fail_counts_and_classes_to_the_json_and_the_report(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    config = write_audit_config(tmp_path, sample_index_dir)
    out = tmp_path / "out.json"
    ids = ("--id", "SOC2-003", "--id", "GDPR-001")  # a hallucinated and a faithful answer

    result = cli(config, "run", *ids, "--repeat", "2", "--report-only", "--json", str(out))

    assert result.returncode == 0, result.stderr
    repeats = json.loads(out.read_text())["repeats"]
    assert repeats["runs"] == 2 and repeats["min_fail"] == 2
    assert repeats["prompts"]["SOC2-003"] == {
        "category": "soc2",
        "failed_runs": 2,
        "runs": 2,
        "failed": True,
        "class": "real",
    }
    assert repeats["prompts"]["GDPR-001"]["class"] == "pass"
    assert "real  SOC2-003 failed 2/2" in result.stdout
    report = Path(result.stdout.split("report: ")[1].split()[0])
    markdown = (report.parent / "report.md").read_text()
    assert "## Flakiness over 2 runs" in markdown
    assert "| SOC2-003 | soc2 | 2 / 2 | real |" in markdown
    assert "Flakiness over 2 runs" in report.read_text()
    # Run 2 asked the target again: the first run had just filled the response cache.
    assert "bypassing the response cache" in result.stderr
    warehouse = Warehouse(tmp_path / "warehouse" / "audit.duckdb")
    cached = warehouse.query(
        "SELECT bool_or(r.from_cache) AS cached FROM responses r JOIN audits a USING (audit_id)"
        " GROUP BY a.audit_id, a.started_at ORDER BY a.started_at"
    )["cached"].tolist()
    assert cached == [False, False]


def test_repeat_runs_after_the_first_bypass_the_cache_unless_told() -> None:
    options = RunOptions(target="t")
    assert repeat_options(options, 0, keep_cache=False).use_cache is None  # as configured
    assert repeat_options(options, 1, keep_cache=False).use_cache is False
    assert repeat_options(options, 4, keep_cache=True).use_cache is None
    cached = RunOptions(target="t", use_cache=True)
    assert repeat_options(cached, 1, keep_cache=True).use_cache is True
