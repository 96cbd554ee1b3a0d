"""The packaged entailment model and the evidence windows it reads."""

from __future__ import annotations

import json

import pytest

from audit_pipeline.verification.entailment import DEFAULT_DIR, EntailmentModel
from audit_pipeline.verification.windows import claim_window, evidence_sentences


@pytest.fixture(scope="module")
def model() -> EntailmentModel:
    return EntailmentModel.shared()


def test_weights_ship_small_with_a_manifest():
    size = sum(p.stat().st_size for p in DEFAULT_DIR.iterdir() if p.is_file())
    assert size <= 50 * 1024 * 1024
    manifest = json.loads((DEFAULT_DIR / "manifest.json").read_text())
    for key in ("base_model", "data", "pairs", "seed", "hardware", "wall_time_s", "command"):
        assert key in manifest


def test_reads_entailment_and_contradiction(model: EntailmentModel):
    evidence = "Backups are kept for 35 days and encrypted with AES-256."
    scores = model.score(
        [
            (evidence, "Backups are kept for 35 days."),
            (evidence, "Backups are not encrypted."),
            ("", "Backups are kept for 35 days."),
        ]
    )
    assert scores.entailed[0] > 0.5
    assert scores.entailed[1] < 0.5
    assert scores.contradicted[1] > scores.contradicted[0]
    assert scores.entailed[2] == 0.0  # no evidence: nothing entails the claim


def test_scores_are_memoised_and_order_independent(model: EntailmentModel):
    pairs = [("The office opens at 9 am.", "The office opens at 9 am."), ("A b c.", "D e f.")]
    first = model.score(pairs)
    second = model.score(list(reversed(pairs)))
    assert first.entailed[0] == second.entailed[1]
    assert first.contradicted[1] == second.contradicted[0]


def test_window_keeps_the_relevant_sentences_in_document_order():
    sentences = [f"Filler sentence number {i} about the weather." for i in range(40)]
    sentences[25] = "Passwords must be at least 14 characters long."
    sentences[3] = "Password rules are set by the security team."
    window = claim_window("Passwords must be 14 characters long.", sentences, budget=20)
    assert "at least 14 characters" in window
    assert window.index("Password rules") < window.index("at least 14")
    assert len(window.split()) <= 20


def test_short_evidence_is_read_whole():
    sentences = evidence_sentences(["One fact. Another fact.", "A third fact."])
    assert claim_window("A fact.", sentences) == "One fact. Another fact. A third fact."


def test_overlong_sentences_are_cut():
    sentences = evidence_sentences([" ".join(["word"] * 200)])
    assert all(len(s.split()) <= 80 for s in sentences)
    assert len(sentences) == 3
