"""``must_not_assert``: a forbidden string named only to be ruled out is a note, not a failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit_pipeline.assertions.content import check_must_not_appear
from audit_pipeline.assertions.denial import check_must_not_assert, is_denied
from audit_pipeline.records.assertions import CheckedClaim
from audit_pipeline.suites.loader import parse_suite
from audit_pipeline_tests.helpers import write_audit_config

DOT5 = "DOT 4 only; DOT 5 silicone fluid must never be used."
BRAKES = (
    "# Brake Fluid\n\nUse DOT 4 brake fluid only. DOT 5 silicone fluid must never be used in "
    "this braking system, because it does not mix with glycol-based fluids. Replace the fluid "
    "every 2 years.\n"
)


def _claims(text: str, label: str | None = "supported") -> list[CheckedClaim]:
    return [CheckedClaim(0, len(text), text, label)]


def test_the_dot5_answer_fails_the_literal_check_and_passes_as_a_supported_denial() -> None:
    assert not check_must_not_appear(DOT5, ["DOT 5"]).passed

    outcome = check_must_not_assert(DOT5, ["DOT 5"], _claims(DOT5))
    assert outcome.passed
    assert outcome.detail.startswith("note: ") and '"DOT 5" at char 12' in outcome.detail


@pytest.mark.parametrize(
    ("answer", "label", "why"),
    [
        ("You can use DOT 5 silicone fluid here.", "supported", "asserted"),
        # The denial is in the other clause: DOT 5 itself is recommended.
        ("DOT 5 is recommended; DOT 3 must not be used.", "supported", "asserted"),
        ("We only use DOT 5 silicone fluid.", "supported", "asserted"),
        (DOT5, "unsupported", "does not back the denial (unsupported)"),
        (DOT5, None, "does not back the denial (not verified)"),
    ],
)
def test_an_assertion_or_an_unbacked_denial_fails(answer: str, label: str | None, why: str) -> None:
    outcome = check_must_not_assert(answer, ["DOT 5"], _claims(answer, label))
    assert not outcome.passed and why in outcome.detail


def test_a_hit_outside_every_checked_claim_fails() -> None:
    outcome = check_must_not_assert(DOT5, ["DOT 5"], [CheckedClaim(0, 11, "DOT 4 only;", None)])
    assert not outcome.passed and "in no checked claim" in outcome.detail


@pytest.mark.parametrize(
    ("text", "phrase", "denied"),
    [
        ("DES, 3DES and RC4 are prohibited for any purpose.", "3DES", True),
        ("TLS 1.0 and TLS 1.1 are disabled.", "TLS 1.0", True),
        ("We do not use AWS KMS.", "AWS KMS", True),
        ("Keys are held in AWS KMS, not on disk.", "AWS KMS", True),  # the same clause
        ("Keys are held in AWS KMS; backups are not.", "AWS KMS", False),
        ("Keys are held in AWS KMS.", "AWS KMS", False),
    ],
)
def test_denial_is_read_in_the_clause_of_the_hit(text: str, phrase: str, denied: bool) -> None:
    start = text.index(phrase)
    assert is_denied(text, start, start + len(phrase)) is denied


def test_suites_accept_must_not_assert_without_changing_existing_hashes() -> None:
    plain = "prompts:\n  - {id: A, category: c, prompt: p, must_not_appear: [x]}\n"
    with_field = "prompts:\n  - {id: A, category: c, prompt: p, mustNotAssert: [DOT 5]}\n"
    suite = parse_suite(with_field, source="s.yaml", fmt="yaml")
    assert suite.prompts[0].turns[0].must_not_assert == ("DOT 5",)
    assert (
        "must_not_assert"
        not in parse_suite(plain, source="s.yaml", fmt="yaml").prompts[0].canonical()
    )


@pytest.mark.slow
def test_an_audit_passes_the_supported_denial_and_fails_the_literal_hit(tmp_path: Path) -> None:
    from audit_pipeline.commands.run_audit import RunOptions, run_audit
    from audit_pipeline.config import load_config
    from audit_pipeline.warehouse.store import Warehouse

    (tmp_path / "vault").mkdir()
    (tmp_path / "vault" / "brakes.md").write_text(BRAKES, encoding="utf-8")
    question = "Which brake fluid can I use?"
    answers = {
        "LITERAL": (DOT5, "must_not_appear"),
        "ASSERTING": (DOT5, "must_not_assert"),
        "WRONG": ("Yes, you can use DOT 5 silicone fluid in this system.", "must_not_assert"),
    }
    suite = tmp_path / "brakes.yaml"
    suite.write_text(
        "prompts:\n"
        + "".join(
            f"  - {{id: {pid}, category: brakes, prompt: '{question}', {field}: [DOT 5]}}\n"
            for pid, (_, field) in answers.items()
        )
    )
    recording = tmp_path / "answers.jsonl"
    recording.write_text(
        "\n".join(json.dumps({"prompt_id": pid, "response": a}) for pid, (a, _) in answers.items())
    )
    config_path = write_audit_config(
        tmp_path,
        suites={"brakes": str(suite)},
        targets={"recorded": {"type": "replay", "path": str(recording)}},
        defaults={"suite": "brakes", "target": "recorded"},
    )
    config = load_config(config_path)

    result = run_audit(config_path, config, RunOptions(target="recorded"))

    assert result.success, result.errors
    rows = Warehouse(config.duckdb_path).query(
        "SELECT prompt_id, assertion, passed, detail FROM assertion_results"
        " WHERE assertion IN ('must_not_appear', 'must_not_assert')"
    )
    outcome = {row.prompt_id: (row.passed, row.detail) for row in rows.itertuples()}
    assert outcome["LITERAL"][0] is False
    assert outcome["ASSERTING"] == (True, outcome["ASSERTING"][1])
    assert outcome["ASSERTING"][1].startswith("note: ")
    assert outcome["WRONG"][0] is False and "asserted" in outcome["WRONG"][1]
    # The asserted forbidden string counts as a hallucination; the supported denial does not.
    failed = {f["prompt_id"] for f in result.outcome.failures}  # type: ignore[union-attr]
    assert failed == {"LITERAL", "WRONG"}
