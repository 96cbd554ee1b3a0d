"""The README's recorded example audits what the recording answers (issue 23 item 8).

``audit-pipeline run --target recorded --suite recorded-sample``: the suite is the sample
recording's prompts, copied unchanged from security-questionnaire, so the example is a complete
audit of 12 answers rather than an ``incomplete`` 12 of 65 turns.
"""

from __future__ import annotations

import json

import yaml

from audit_pipeline.config import load_config
from audit_pipeline.suites.loader import load_suite
from audit_pipeline_tests.helpers import REPO_ROOT, SAMPLE_REPLAY, SAMPLE_SUITE


def test_the_recorded_sample_suite_is_the_recordings_prompts_unchanged() -> None:
    config = load_config(REPO_ROOT / "audit.yaml")
    _, path = config.suite_path("recorded-sample")
    sample = load_suite(path)
    full = {p["id"]: p for p in yaml.safe_load(SAMPLE_SUITE.read_text())["prompts"]}
    copied = yaml.safe_load(path.read_text())["prompts"]
    assert all(prompt == full[prompt["id"]] for prompt in copied)  # drift fails here
    recorded = {
        (row["prompt_id"], row.get("turn", 0))
        for row in map(json.loads, SAMPLE_REPLAY.read_text().splitlines())
    }
    turns = {(prompt.id, index) for prompt in sample.prompts for index in range(len(prompt.turns))}
    assert turns == recorded  # every turn answered, every answer asked
