"""CLI exit codes through a subprocess: 0 deploy/warn, 1 block or failed gate, 2 usage error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.helpers import FAITHFUL_IDS, HALLUCINATED_IDS, write_audit_config

SUMMARY_KEYS = {
    "total",
    "passed",
    "failed",
    "pass_rate",
    "assertions_passed",
    "assertions_failed",
    "hallucinations",
    "citation_errors",
    "fallback_errors",
}
# Gates relaxed except the pass rate, which warns below 100 %; only a risk above 0.99 blocks.
LENIENT = {
    # incomplete_share 1.0: a prompt without a recorded answer does not end the audit early.
    "scoring": {"deploy_max_risk": 0.98, "warn_max_risk": 0.99, "incomplete_share": 1.0},
    "gates": {
        "hallucinations_error": 100,
        "citation_errors_warn": 99,
        "citation_errors_error": 100,
        "pass_rate_warn": 1.0,
        "pass_rate_error": 0.01,
        "fallback_errors_warn": 99,
        "fallback_errors_error": 100,
    },
}


def _ids(*ids: str) -> list[str]:
    return [arg for prompt_id in ids for arg in ("--id", prompt_id)]


@pytest.fixture(scope="module")
def lenient_config(tmp_path_factory: pytest.TempPathFactory, sample_index_dir: Path) -> Path:
    return write_audit_config(tmp_path_factory.mktemp("lenient"), sample_index_dir, **LENIENT)


@pytest.mark.slow
def test_passing_audit_exits_0_and_writes_the_json_summary(
    lenient_config: Path, tmp_path: Path
) -> None:
    out = tmp_path / "summary.json"
    result = cli(lenient_config, "run", *_ids("SOC2-001", "GDPR-001"), "--json", str(out))
    assert result.returncode == 0, result.stderr
    summary = json.loads(out.read_text())
    assert set(summary) >= {
        "audit_id",
        "target",
        "decision",
        "risk",
        "summary",
        "by_category",
        "failures",
        "gates",
    }
    assert set(summary["summary"]) == SUMMARY_KEYS
    assert summary["summary"]["total"] == 2 and summary["summary"]["failed"] == 0
    assert summary["decision"] == "deploy"
    assert {g["name"] for g in summary["gates"]} == {
        "completeness",
        "risk",
        "hallucinations",
        "citation_errors",
        "pass_rate",
        "fallback_errors",
    }
    assert all(g["status"] == "pass" for g in summary["gates"])
    assert set(summary["by_category"]) == {"soc2", "gdpr"}
    assert set(summary["by_category"]["soc2"]) == {"passed", "failed", "risk"}
    # The local verifier calls no judge: an exact zero bill, not an unknown one.
    assert summary["judge"] == {
        "calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost_usd": 0.0,
    }
    assert "DECISION: DEPLOY" in result.stdout
    assert re.search(r"vault\s+\d+ documents \(0 skipped\), \d+ chunks", result.stdout)
    assert re.search(r"responses\s+2 turns, 0 errors", result.stdout)
    assert "report:" in result.stdout


@pytest.mark.slow
def test_warning_gate_exits_0_unless_fail_on_warn(lenient_config: Path) -> None:
    args = ("run", *_ids("SOC2-001", "ISO-001"))  # ISO-001 has no recorded answer
    warned = cli(lenient_config, *args)
    assert warned.returncode == 0, warned.stderr
    assert re.search(r"pass_rate\s+WARN", warned.stdout)
    strict = cli(lenient_config, *args, "--fail-on", "warn", "--no-cache")
    assert strict.returncode == 1, strict.stderr
    assert "0 embedded" in strict.stdout  # the vault did not change between the two runs


@pytest.mark.slow
def test_hallucinations_block_the_release(tmp_path: Path, sample_index_dir: Path) -> None:
    config = write_audit_config(tmp_path, sample_index_dir)
    out = tmp_path / "summary.json"
    result = cli(config, "run", *_ids(*FAITHFUL_IDS, *HALLUCINATED_IDS), "--json", str(out))
    assert result.returncode == 1, result.stderr
    summary = json.loads(out.read_text())
    assert summary["summary"]["hallucinations"] >= 1
    gate = next(g for g in summary["gates"] if g["name"] == "hallucinations")
    assert gate["status"] == "error"
    failed = {f["prompt_id"] for f in summary["failures"]}
    assert "ENC-002" in failed  # "quarterly" is in its must_not_appear list
    # The same audit as a demo (`make audit`): the decision is printed, the exit code is 0.
    shown = cli(config, "run", *_ids(*FAITHFUL_IDS, *HALLUCINATED_IDS), "--report-only")
    assert shown.returncode == 0, shown.stderr
    assert "DECISION: BLOCK" in shown.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("run", "--target", "nope"), "unknown target 'nope'; configured: recorded"),
        (("run", "--category", "astrology"), "astrology"),
        (("run", "--repeat", "2", "--min-fail", "3"), "--min-fail"),
        (("report", "20990101T000000Z-none-00000000"), "no warehouse at"),
    ],
)
def test_usage_errors_exit_2_and_write_nothing(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    config = write_audit_config(tmp_path)
    result = cli(config, *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert not (tmp_path / "warehouse" / "audit.duckdb").exists()


def test_bad_configuration_and_suite_exit_2_with_the_place(tmp_path: Path) -> None:
    config = write_audit_config(tmp_path)
    config.write_text(config.read_text() + "scoring:\n  deploy_max_risk: [oops\n")
    broken = cli(config, "run")
    assert broken.returncode == 2
    assert "YAML syntax error at line" in broken.stderr

    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "prompts:\n"
        "  - id: ENC-9\n    category: encryption\n    prompt: Keys?\n"
        "    expected_behavior: answer_with_sources\n"
    )
    config = write_audit_config(tmp_path, suites={"security-questionnaire": str(suite)})
    invalid = cli(config, "run")
    assert invalid.returncode == 2
    assert "ENC-9" in invalid.stderr and "expected_behavior" in invalid.stderr
    assert not (tmp_path / "warehouse" / "audit.duckdb").exists()


def test_missing_key_variable_is_named_before_any_call(tmp_path: Path) -> None:
    config = write_audit_config(
        tmp_path,
        targets={
            "gpt": {
                "type": "litellm",
                "model": "openai/gpt-4o-mini",
                "api_key_env": "AUDIT_TEST_MISSING_KEY",
            }
        },
        defaults={"suite": "security-questionnaire", "target": "gpt"},
    )
    result = cli(config, "run")
    assert result.returncode == 2
    assert "AUDIT_TEST_MISSING_KEY" in result.stderr
    assert not (tmp_path / "warehouse" / "audit.duckdb").exists()


@pytest.mark.slow
def test_json_summary_shows_what_the_judge_spent(tmp_path: Path, sample_index_dir: Path) -> None:
    """Through real litellm in the CLI's own process: its mock reply has a usage block and a
    listed model, so calls, tokens and a price all reach the JSON summary."""
    reply = json.dumps(
        {
            "label": "supported",
            "probability": 0.9,
            "justification": "ok",
            "supporting_chunk_ids": [],
        }
    )
    judge = {"model": "openai/gpt-4o-mini", "params": {"mock_response": reply}}
    config = write_audit_config(
        tmp_path, sample_index_dir, **LENIENT, detection={"verifier": "llm", "judge": judge}
    )
    out = tmp_path / "summary.json"
    result = cli(config, "run", *_ids("SOC2-001"), "--json", str(out))
    assert result.returncode == 0, result.stderr
    spent = json.loads(out.read_text())["judge"]
    assert spent["calls"] > 0 and spent["prompt_tokens"] > 0 and spent["completion_tokens"] > 0
    assert spent["cost_usd"] > 0
    assert re.search(rf"judge\s+{spent['calls']} calls, \d+ \+ \d+ tokens, \$", result.stdout)
