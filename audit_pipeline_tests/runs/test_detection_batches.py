"""Batches of prompts for the detection stages (``detection.batches``): which prompt goes where,
and what the setting may be.

The whole-pipeline checks (same rows with two batches in two processes, carry-over and stale
labels through the batched graph) are in ``defs/test_scale_out.py`` and
``defs/test_reverify_changes.py``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from audit_pipeline.config import ConfigError, load_config
from audit_pipeline.runs.detection_batches import prompt_batch
from audit_pipeline.verification.configured import verifier_identity
from audit_pipeline.verification.detection_settings import DetectionSettings
from audit_pipeline_tests.helpers import write_audit_config


def test_a_prompt_lands_in_the_same_batch_in_every_process_and_run() -> None:
    # Pinned values: a hash of the id, not Python's per-process salted hash().
    assert [prompt_batch(p, 2) for p in ("RET-1", "ACC-1", "ACC-2", "ENC-1", "ENC-2")] == [
        1,
        0,
        1,
        1,
        0,
    ]
    assert prompt_batch("RET-1", 1) == 0


def test_prompts_spread_over_the_batches() -> None:
    counts = Counter(prompt_batch(f"BENCH-{i:04d}", 4) for i in range(2000))
    assert sorted(counts) == [0, 1, 2, 3]
    assert min(counts.values()) > 400  # 500 each on average


def test_a_batch_count_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        prompt_batch("RET-1", 0)


@pytest.mark.parametrize(
    ("batches", "message"),
    [
        (0, "detection.batches"),
        (257, "detection.batches"),
        ("2", "detection.batches"),
    ],
)
def test_the_setting_is_validated(tmp_path: Path, batches: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write_audit_config(tmp_path, detection={"batches": batches}))


def test_the_batch_count_leaves_the_verifier_identity_alone() -> None:
    """Verdicts carry over between batch counts: how the work is split changes no verdict."""
    verifier: Any = SimpleNamespace(name="local", version="local-4")
    one = verifier_identity(verifier, DetectionSettings())
    assert verifier_identity(verifier, DetectionSettings(batches=8)) == one
    assert verifier_identity(verifier, DetectionSettings(evidence_top_k=3)) != one
