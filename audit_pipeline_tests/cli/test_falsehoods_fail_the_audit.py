"""A bot that denies what the vault requires, or changes a stated period, fails the audit.

The answers a new user saw pass (issue 22): "I do not enforce multi-factor authentication"
was supported at 0.99 and "rotated quarterly, every 90 days" (the vault: every 12 months) left
the audit at DEPLOY with exit 0. Run through the real CLI on the sample vault, each is a
hallucination and the gate fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.helpers import write_audit_config

pytestmark = pytest.mark.slow

ANSWERS = {
    "AC-002": "I do not enforce multi-factor authentication.",
    "ENC-002": "Key encryption keys are rotated quarterly, every 90 days.",
}


def test_a_denied_obligation_and_a_changed_period_fail_the_audit(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    recording = tmp_path / "answers.jsonl"
    recording.write_text(
        "".join(
            json.dumps({"prompt_id": prompt, "response": answer}) + "\n"
            for prompt, answer in ANSWERS.items()
        )
    )
    config = write_audit_config(
        tmp_path,
        sample_index_dir,
        targets={"recorded": {"type": "replay", "path": str(recording), "min_coverage": 0.01}},
    )
    out = tmp_path / "summary.json"
    ids = [a for prompt in ANSWERS for a in ("--id", prompt)]
    result = cli(config, "run", "--no-progress", *ids, "--json", str(out))

    assert result.returncode == 1, result.stdout + result.stderr
    summary = json.loads(out.read_text())
    gate = next(g for g in summary["gates"] if g["name"] == "hallucinations")
    assert gate["status"] == "error"
    warehouse = Warehouse(tmp_path / "warehouse" / "audit.duckdb")
    verdicts = warehouse.query(
        "SELECT c.prompt_id, v.label, v.probability, v.decided_by FROM verdicts v"
        " JOIN claims c USING (audit_id, claim_id)"
    )
    by_prompt = {row.prompt_id: row for row in verdicts.itertuples()}
    assert set(by_prompt) == set(ANSWERS)
    for prompt in ANSWERS:
        verdict = by_prompt[prompt]
        assert verdict.label == "contradicted", (prompt, verdict)
        assert verdict.probability < 0.5
    assert by_prompt["AC-002"].decided_by == "polarity"
    assert by_prompt["ENC-002"].decided_by == "specifics"
