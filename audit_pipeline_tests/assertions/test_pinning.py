"""Regression pinning: the three tolerances, pins in suites, and ``audit-pipeline pin``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from audit_pipeline.assertions.pinning import check_pinned, embedding_similarity
from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.suites.errors import SuiteValidationError
from audit_pipeline.suites.loader import load_suite, parse_suite
from audit_pipeline.suites.pins import write_pins
from audit_pipeline_tests.helpers import SAMPLE_SUITE, write_audit_config

PIN = "I can't answer that from the trusted documents available to me."


def test_exact_allows_no_change_at_all() -> None:
    assert check_pinned(PIN, PIN, "exact").passed
    drifted = check_pinned(PIN.replace("can't", "cannot"), PIN, "exact")
    assert not drifted.passed and "at char 5" in drifted.detail


def test_normalized_ignores_case_spacing_quotes_markers_and_final_punctuation() -> None:
    reflowed = (
        "i CAN\u2019T answer that\nfrom the  trusted documents available to me [source: faq.md]"
    )
    assert check_pinned(reflowed, PIN, "normalized").passed
    assert not check_pinned(
        "I can answer that from the trusted documents.", PIN, "normalized"
    ).passed


def test_semantic_passes_a_paraphrase_and_fails_another_answer(
    embedder: SentenceTransformerEmbedder,
) -> None:
    similarity = embedding_similarity(embedder)
    paraphrase = "I cannot answer that from the trusted documents I have available."
    assert check_pinned(paraphrase, PIN, "semantic", 0.9, similarity).passed
    other = check_pinned(
        "Our subprocessors are AWS, Stripe and Datadog.", PIN, "semantic", 0.9, similarity
    )
    assert not other.passed and "similarity 0." in other.detail
    # The threshold is the suite's: a looser rewording passes only under a lower one.
    loose = "That question cannot be answered from the trusted documents available to me."
    assert not check_pinned(loose, PIN, "semantic", 0.95, similarity).passed
    assert check_pinned(loose, PIN, "semantic", 0.8, similarity).passed


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ("pinned_tolerance: fuzzy, pinned_response: x", "'fuzzy' is not one of"),
        ("pinned_tolerance: exact", "needs a pinned_response"),
        ("pinned_response: x, pinned_min_similarity: 0.8", "only applies to pinned_tolerance"),
        (
            "pinned_response: x, pinned_tolerance: semantic, pinned_min_similarity: 2",
            "must be a number in (0, 1]",
        ),
    ],
)
def test_bad_pins_are_suite_errors(fields: str, problem: str) -> None:
    text = f"prompts:\n  - {{id: A, category: c, prompt: p, {fields}}}\n"
    with pytest.raises(SuiteValidationError) as error:
        parse_suite(text, source="s.yaml", fmt="yaml")
    assert problem in str(error.value)


YAML = """\
# A hand-written suite: comments and layout must survive pinning.
name: pins
prompts:
  - id: BLOCK   # a block entry
    category: c
    prompt: "Who are your subprocessors?"
    notes: kept as it is
  - {id: FLOW, category: c, prompt: Hello}
  - id: CHAT
    category: c
    conversation:
      - prompt: first
      - prompt: second
        no_agreement: true
"""


def test_yaml_pins_are_written_in_place(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(YAML)
    answers = {("BLOCK", 0): PIN, ("FLOW", 0): 'Hi "there"', ("CHAT", 1): "No.\nReally."}

    write_pins(path, answers, "semantic", 0.85)

    text = path.read_text()
    for line in YAML.splitlines():  # every original line is still there
        assert line.rstrip("}") in text
    suite = load_suite(path)
    assert {(p.id, i): t.pinned_response for p in suite for i, t in enumerate(p.turns)} == {
        ("BLOCK", 0): PIN,
        ("FLOW", 0): 'Hi "there"',
        ("CHAT", 0): None,
        ("CHAT", 1): "No.\nReally.",
    }
    assert suite.get("CHAT").turns[1].no_agreement
    assert suite.get("BLOCK").turns[0].pinned_min_similarity == 0.85

    # Pinning again replaces the pin (and drops a similarity that no longer applies).
    write_pins(path, {("BLOCK", 0): "new answer", ("FLOW", 0): "hey"}, "exact", None)
    again = load_suite(path)
    assert again.get("BLOCK").turns[0].pinned_response == "new answer"
    assert again.get("BLOCK").turns[0].pinned_tolerance == "exact"
    assert again.get("FLOW").turns[0].pinned_response == "hey"
    assert path.read_text().count("pinned_response") == 3


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_json_suites_are_rewritten_with_the_pin(tmp_path: Path, suffix: str) -> None:
    entries = [
        {"id": "A", "category": "c", "prompt": "p"},
        {"id": "B", "category": "c", "prompt": "q"},
    ]
    path = tmp_path / f"suite{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps({"prompts": entries}))
    else:
        path.write_text("\n".join(json.dumps(e) for e in entries))

    write_pins(path, {("B", 0): "pinned"}, "normalized", None)

    suite = load_suite(path)
    assert suite.get("B").turns[0].pinned_response == "pinned"
    assert suite.get("A").turns[0].pinned_response is None


@pytest.mark.slow
def test_pin_command_writes_the_audit_answers_and_the_next_audit_checks_them(
    tmp_path: Path, sample_index_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from audit_pipeline.cli import main
    from audit_pipeline.commands.run_audit import RunOptions, run_audit
    from audit_pipeline.config import load_config
    from audit_pipeline.warehouse.store import Warehouse

    suite = tmp_path / "suite.yaml"
    shutil.copyfile(SAMPLE_SUITE, suite)
    config_path = write_audit_config(
        tmp_path, sample_index_dir, suites={"security-questionnaire": str(suite)}
    )
    config = load_config(config_path)
    ids = ("SOC2-001", "ENC-002")
    first = run_audit(config_path, config, RunOptions(target="recorded", ids=ids))
    assert first.success, first.errors
    audit_id = first.outcome.audit_id  # type: ignore[union-attr]

    code = main(
        [
            "--config",
            str(config_path),
            "pin",
            audit_id,
            "--id",
            "SOC2-001",
            "--tolerance",
            "normalized",
        ]
    )

    assert code == 0, capsys.readouterr().err
    assert "pinned 1 turn(s) of SOC2-001" in capsys.readouterr().out
    original = SAMPLE_SUITE.read_text().splitlines()
    pinned = suite.read_text().splitlines()
    assert [line for line in pinned if line not in original] == [
        f"    pinned_response: {json.dumps(first_answer(config, audit_id))}",
        "    pinned_tolerance: normalized",
    ]
    second = run_audit(
        config_path, load_config(config_path), RunOptions(target="recorded", ids=ids)
    )
    rows = Warehouse(config.duckdb_path).query(
        "SELECT prompt_id, passed, detail FROM assertion_results WHERE audit_id = ?"
        " AND assertion = 'pinned_response'",
        [second.outcome.audit_id],  # type: ignore[union-attr]
    )
    assert rows.to_dict("records") == [
        {
            "prompt_id": "SOC2-001",
            "passed": True,
            "detail": "matches the pinned response (normalized)",
        }
    ]
    # A prompt the audit did not ask cannot be pinned; the suite is left as it was.
    before = suite.read_text()
    assert main(["--config", str(config_path), "pin", audit_id, "--id", "GDPR-001"]) == 2
    assert "GDPR-001' turn 0 was not asked" in capsys.readouterr().err
    assert suite.read_text() == before


def first_answer(config: object, audit_id: str) -> str:
    from audit_pipeline.warehouse.store import Warehouse

    return str(
        Warehouse(config.duckdb_path).scalar(  # type: ignore[attr-defined]
            "SELECT response FROM responses WHERE audit_id = ? AND prompt_id = 'SOC2-001'",
            [audit_id],
        )
    )
