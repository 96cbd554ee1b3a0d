"""One very long answer cannot dilute the audit: risk is per answer, claims are capped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.helpers import (
    FAITHFUL_IDS,
    HALLUCINATED_IDS,
    SAMPLE_REPLAY,
    write_audit_config,
)

pytestmark = pytest.mark.slow

TRUE_SENTENCE = "Customer data is encrypted at rest with AES-256-GCM. "


def test_a_2_mb_answer_of_one_true_sentence_does_not_turn_block_into_deploy(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    rows = [json.loads(line) for line in SAMPLE_REPLAY.read_text().splitlines() if line]
    for row in rows:
        if row["prompt_id"] == "SOC2-001":
            row["response"] = TRUE_SENTENCE * (2_000_000 // len(TRUE_SENTENCE))
            row.pop("context", None)
    recording = tmp_path / "answers.jsonl"
    recording.write_text("".join(json.dumps(row) + "\n" for row in rows))
    config = write_audit_config(
        tmp_path,
        sample_index_dir,
        targets={"recorded": {"type": "replay", "path": str(recording)}},
        detection={"max_claims_per_answer": 40},
    )
    out = tmp_path / "summary.json"
    ids = [a for i in (*FAITHFUL_IDS, *HALLUCINATED_IDS) for a in ("--id", i)]
    result = cli(config, "run", "--no-progress", *ids, "--json", str(out))

    assert result.returncode == 1, result.stderr
    summary = json.loads(out.read_text())
    # Risk is per answer: 4 of the 11 answers hallucinate, so it stays near their share. Were it
    # weighted by claims, the 40 true claims kept of the long answer (or its 36,000 uncapped)
    # would pull it towards 0.
    assert summary["decision"] == "block" and summary["risk"] >= 0.2
    assert summary["claims_cap"]["max_per_answer"] == 40
    assert summary["claims_cap"]["capped_answers"] == 1
    assert summary["claims_cap"]["dropped"] > 30_000
    assert summary["claims_cap"]["answers"][0].startswith("SOC2-001:0 ")
    assert "capped     1 answer(s) over 40 claims" in result.stdout
    warehouse = Warehouse(tmp_path / "warehouse" / "audit.duckdb")
    kept = warehouse.scalar(
        "SELECT count(*) FROM claims WHERE audit_id = ? AND prompt_id = 'SOC2-001'",
        [summary["audit_id"]],
    )
    assert kept == 40
