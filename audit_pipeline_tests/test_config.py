"""Configuration mistakes are errors that say where, never silently accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit_pipeline.config import ConfigError, load_config
from audit_pipeline.scoring.gates import GateSettings, evaluate_gates
from audit_pipeline_tests.helpers import write_audit_config

SUMMARY = {"pass_rate": 1.0, "hallucinations": 0, "citation_errors": 0, "fallback_errors": 0}


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "audit.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_key_given_twice_is_an_error_naming_both_lines(tmp_path: Path) -> None:
    path = _config(
        tmp_path,
        "gates:\n"
        "  hallucinations_error: 0\n"
        "vault:\n"
        "  path: data/sample-vault\n"
        "gates:\n"  # pasted later: used to replace the first block and its hallucination gate
        "  pass_rate_warn: 0.9\n",
    )
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert "key 'gates' at the top level is given twice, at line 1 and at line 5" in str(
        error.value
    )
    nested = _config(tmp_path, "scoring:\n  deploy_max_risk: 0.05\n  deploy_max_risk: 0.5\n")
    with pytest.raises(ConfigError, match="'deploy_max_risk' in scoring is given twice, at line 2"):
        load_config(nested)


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ("retrieval:\n  candidates: \"20\"\n", "retrieval.candidates: Input should be a valid "
         "integer, not the string '20' (write it without quotes)"),
        ("scoring:\n  deploy_max_risk: '0.1'\n", "scoring.deploy_max_risk"),
        ("cache:\n  use_by_default: 'yes'\n", "cache.use_by_default"),
        ("detection:\n  cascade_band: [0.2, '0.6']\n", "detection.cascade_band.1"),
    ],
)  # fmt: skip
def test_strings_are_not_coerced_to_numbers_or_booleans(
    tmp_path: Path, section: str, message: str
) -> None:
    with pytest.raises(ConfigError) as error:
        load_config(_config(tmp_path, section))
    assert message in str(error.value)


def test_numbers_paths_and_lists_still_read_as_written(tmp_path: Path) -> None:
    config = load_config(write_audit_config(tmp_path, retrieval={"candidates": 20}))
    assert config.retrieval.candidates == 20 and config.vault.include == (
        "*.md",
        "*.markdown",
        "*.txt",
        "*.pdf",
        "*.html",
        "*.htm",
        "*.docx",
    )
    assert config.vault_path == tmp_path / "vault"
    assert (
        load_config(_config(tmp_path, "scoring:\n  deploy_max_risk: 0\n")).scoring.deploy_max_risk
        == 0
    )


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ("scoring:\n  warn_max_risk: 1.0\n", "no audit could ever be 'block'"),
        ("scoring:\n  deploy_max_risk: 0.25\n", "no audit can ever be 'warn'"),
        ("gates:\n  citation_errors_warn: 5\n", "citation_errors_warn (5) must be below"),
        ("gates:\n  fallback_errors_warn: 2\n", "fallback_errors_warn (2) must be below"),
        ("gates:\n  pass_rate_warn: 0.8\n", "pass_rate_error (0.85) must be below"),
        ("gates:\n  pass_rate_error: 0\n  pass_rate_warn: 0.9\n", "could never fail"),
    ],
)
def test_thresholds_that_make_a_level_unreachable_are_errors(
    tmp_path: Path, section: str, message: str
) -> None:
    with pytest.raises(ConfigError) as error:
        load_config(_config(tmp_path, section))
    assert message in str(error.value)


def test_block_decision_warn_is_honoured_by_the_exit_code() -> None:
    from audit_pipeline.commands.run_command import exit_code
    from audit_pipeline.scoring.rules import DEFAULT_THRESHOLDS, release_decision

    def release(settings: GateSettings) -> str:
        gates = evaluate_gates(SUMMARY, settings, risk=0.5, thresholds=DEFAULT_THRESHOLDS)
        return release_decision(gates).decision

    strict, softened = release(GateSettings()), release(GateSettings(block_decision="warn"))
    assert (strict, softened) == ("block", "warn")
    assert exit_code(strict, "block", report_only=False) == 1
    assert exit_code(softened, "block", report_only=False) == 0
    assert exit_code(softened, "warn", report_only=False) == 1
