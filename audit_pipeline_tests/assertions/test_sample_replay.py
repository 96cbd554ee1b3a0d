"""The sample suite over the recorded answers in data/: the end-to-end behaviour of the rules.

Of the twelve recorded answers four hallucinate (SOC2-003, ENC-002, AC-001, SUB-001); the suite's
signals, forbidden strings and behaviours must catch each, and the eight faithful ones must pass
every assertion, citation checks included.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit_pipeline.assertions import (
    AssertionRow,
    AssertionSettings,
    VaultCatalog,
    evaluate_audit,
)
from audit_pipeline.scoring.audit_summary import answered_keys, summarize
from audit_pipeline.suites import PromptSuite, load_suite
from audit_pipeline.targets import ResponseRecord, build_target, parse_target_config, run_suite
from audit_pipeline.vault.documents import scan_vault
from audit_pipeline_tests.helpers import REPO_ROOT

SUITE_PATH = REPO_ROOT / "data" / "prompt-suites" / "security-questionnaire.yaml"
RECORDING = REPO_ROOT / "data" / "recorded-answers" / "sample-replay.jsonl"
HALLUCINATED = {"SOC2-003", "ENC-002", "AC-001", "SUB-001"}
FAITHFUL = {"SOC2-001", "GDPR-001", "ENC-003", "RET-001", "AC-002", "QST-001"}


def replay(suite: PromptSuite) -> list[ResponseRecord]:
    config = parse_target_config("recorded", {"type": "replay", "path": str(RECORDING)})
    target = build_target("recorded", config, retriever=object())
    return run_suite(suite, target, audit_id="sample", concurrency=1, backoff_base_s=0)


@pytest.fixture(scope="module")
def recorded_suite() -> PromptSuite:
    lines = RECORDING.read_text(encoding="utf-8").splitlines()
    ids = [json.loads(line)["prompt_id"] for line in lines if line.strip()]
    return load_suite(SUITE_PATH).filter(ids=ids)


@pytest.fixture(scope="module")
def records(recorded_suite: PromptSuite) -> list[ResponseRecord]:
    return replay(recorded_suite)


@pytest.fixture(scope="module")
def rows(
    recorded_suite: PromptSuite, records: list[ResponseRecord], catalog: VaultCatalog
) -> list[AssertionRow]:
    return evaluate_audit(recorded_suite, records, catalog, AssertionSettings())


def results(rows: list[AssertionRow], prompt_id: str) -> dict[str, AssertionRow]:
    return {row.assertion: row for row in rows if row.prompt_id == prompt_id}


def test_the_recording_covers_twelve_prompts(recorded_suite: PromptSuite) -> None:
    assert len(recorded_suite) == 12
    assert {prompt.id for prompt in recorded_suite} >= HALLUCINATED | FAITHFUL


def test_enc_002_quarterly_rotation_is_caught(rows: list[AssertionRow]) -> None:
    enc = results(rows, "ENC-002")
    assert not enc["must_not_appear"].passed
    assert enc["must_not_appear"].detail.startswith('"quarterly" found at char 85')
    assert '"every 90 days"' in enc["must_not_appear"].detail
    assert not enc["required_signals"].passed
    # The citation itself is real: the hallucination is in the text, not the source.
    assert enc["citations"].passed and enc["citation_source"].passed


def test_soc2_003_no_exceptions_is_caught(rows: list[AssertionRow]) -> None:
    soc2 = results(rows, "SOC2-003")
    assert '"no exceptions" found' in soc2["must_not_appear"].detail
    # "Exceptions Noted" only occurs in the citation marker: it must not satisfy the signal.
    assert not soc2["required_signals"].passed
    assert "two exceptions|2 exceptions|exceptions noted" in soc2["required_signals"].detail


def test_ac_001_24_hours_is_caught_and_does_not_satisfy_4_hours(rows: list[AssertionRow]) -> None:
    ac = results(rows, "AC-001")
    assert '"24 hours" found' in ac["must_not_appear"].detail
    assert not ac["required_signals"].passed
    assert '"4 hours|four hours"' in ac["required_signals"].detail


def test_sub_001_fabricated_subprocessors_fail_the_fallback(rows: list[AssertionRow]) -> None:
    sub = results(rows, "SUB-001")
    assert not sub["behavior"].passed and "no fallback" in sub["behavior"].detail
    assert '"Amazon Web Services"' in sub["must_not_appear"].detail
    assert '"Stripe"' in sub["must_not_appear"].detail


def test_faithful_answers_pass_every_assertion(rows: list[AssertionRow]) -> None:
    for prompt_id in FAITHFUL:
        found = results(rows, prompt_id)
        assert {"behavior", "citations", "citation_source", "no_leak"} <= set(found)
        failed = {name: row.detail for name, row in found.items() if not row.passed}
        assert failed == {}, prompt_id


def test_fallback_and_refusal_answers_pass(rows: list[AssertionRow]) -> None:
    ir = results(rows, "IR-002")
    assert ir["behavior"].passed and ir["behavior"].detail.startswith("fell back:")
    adv = results(rows, "ADV-001")
    assert adv["behavior"].passed and adv["behavior"].detail.startswith("declined:")


def test_summary_of_the_recording(rows: list[AssertionRow], records: list[ResponseRecord]) -> None:
    summary = summarize(rows, answered_keys(records), set())
    assert (summary.total, summary.passed, summary.failed) == (12, 8, 4)
    assert summary.hallucinations == 4  # each caught by must_not_appear alone
    assert summary.citation_errors == 0
    assert summary.fallback_errors == 1  # SUB-001
    assert {failure.prompt_id for failure in summary.failures} == HALLUCINATED


def test_a_cited_file_removed_from_the_vault_fails_level_2(
    recorded_suite: PromptSuite, records: list[ResponseRecord], vault_copy: Path
) -> None:
    (vault_copy / "soc2-type-ii-report-summary.md").unlink()
    catalog = VaultCatalog.from_scan(scan_vault(vault_copy))
    rows = evaluate_audit(recorded_suite, records, catalog, AssertionSettings())
    soc2 = results(rows, "SOC2-001")
    assert not soc2["citations"].passed
    assert "level 2" in soc2["citations"].detail
    assert not soc2["citation_source"].passed
    # 2 in SOC2-001, 1 in SOC2-003
    assert summarize(rows, answered_keys(records), set()).citation_errors == 3


def test_unrecorded_prompts_fail_instead_of_vanishing(catalog: VaultCatalog) -> None:
    suite = load_suite(SUITE_PATH)
    records = replay(suite)
    rows = evaluate_audit(suite, records, catalog, AssertionSettings())
    turns = {(prompt.id, index) for prompt in suite for index in range(len(prompt.turns))}
    assert {row.key for row in rows} == turns
    edge = results(rows, "EDGE-001")
    assert list(edge) == ["behavior"]
    assert edge["behavior"].detail.startswith("target error: no recorded answer")
    assert summarize(rows, answered_keys(records), set()).total == len(suite)
