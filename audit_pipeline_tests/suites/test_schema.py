"""The pydantic suite-entry models: hashes kept from the hand-written checker, strict types,
cross-field rules, and every problem of an entry reworded as one ``SuiteIssue``."""

from __future__ import annotations

import json

import pytest

from audit_pipeline.suites import SuiteValidationError, parse_suite

# Every kind of field and both spellings; the hashes below were computed by the hand-written
# checker that the models replaced, so a change of canonical form shows up here.
PINNED_SUITE = """\
name: pinned-hashes
version: "1"
prompts:
  - id: ENC-001
    category: encryption
    prompt: How is customer data encrypted at rest?
    expected_behavior: answer_with_citation
    required_signals: ["AES-256|AES 256", "at rest"]
    must_not_appear: [AWS KMS]
    must_not_assert: [quarterly rotation]
    required_citation_source: encryption-standard.md
    citation_must_contain: [Encryption at rest]
    expected_doc_ids: [encryption-standard.md]
    notes: commentary, not hashed
  - id: SUB-001
    category: subprocessors
    prompt: Who are your subprocessors?
    expectedBehavior: security_clearance_fallback
    requiredSignals: ["security clearance|does not contain"]
    mustNotAppear: [AWS, Stripe]
  - id: PIN-001
    category: pinned
    prompt: What is the RPO?
    pinned_response: The RPO is 15 minutes.
    pinned_tolerance: semantic
    pinned_min_similarity: 0.85
  - id: PIN-002
    category: pinned
    prompt: What is the RTO?
    pinnedResponse: The RTO is 4 hours.
  - id: CHAIN-001
    category: multi_turn
    conversation:
      - user: Tell me about encryption
        assertCitation: true
      - prompt: And the key rotation schedule?
        assertFallback: true
        pinned_response: I cannot find that.
        pinned_tolerance: normalized
      - user: You just said keys are rotated quarterly
        assertNoAgreement: true
        must_not_appear: [quarterly]
"""
PINNED_HASHES = {
    "ENC-001": "244a96a0e70c6c2b65053221d90e486eab191880fc8f60c78bb19fb0f7842066",
    "SUB-001": "72927618bc8b27d3fdd108b665a898540824aec381bc2b86d2edff1baaafcdc7",
    "PIN-001": "d78be2abfbdd0a28a3ef9b917bb9f3f60a41230eecc7d4fbc2f25ba3694165cc",
    "PIN-002": "b66b88179424bd3fb0ac95794145693f64570a29eeba768d9892500115adf861",
    "CHAIN-001": "12e003efa69a50438c597206d68c18e91b93ae29966e8626e18b042248d38102",
}
PINNED_CONTENT_HASH = "6d400edb68d3739ea5b6e029a368d04831600898b1322c6f5241458354e2d63b"


def test_hashes_are_those_of_the_hand_written_checker() -> None:
    suite = parse_suite(PINNED_SUITE, source="pinned.yaml", fmt="yaml")
    assert {prompt.id: prompt.prompt_hash for prompt in suite} == PINNED_HASHES
    assert suite.content_hash == PINNED_CONTENT_HASH
    chain = suite.get("CHAIN-001")
    assert [turn.expected_behavior for turn in chain.turns] == [
        "answer_with_citation",
        "fallback",
        None,
    ]
    assert suite.get("PIN-001").turns[0].pinned_min_similarity == 0.85


def issues(*entries: object) -> set[tuple[str, str | None, str]]:
    """(prompt id, field, message) of every issue the entries give."""
    with pytest.raises(SuiteValidationError) as caught:
        parse_suite(json.dumps({"prompts": list(entries)}), source="s.json", fmt="json")
    return {(issue.prompt_id, issue.field, issue.message) for issue in caught.value.issues}


def entry(**fields: object) -> dict[str, object]:
    return {"id": "P-1", "category": "c", "prompt": "Q?", **fields}


def conversation(*turns: object, **fields: object) -> dict[str, object]:
    return {"id": "C-1", "category": "c", "conversation": list(turns), **fields}


def test_a_conversation_reports_all_its_problems_at_once() -> None:
    broken = conversation(
        {"user": "a", "mustNotApear": ["x"]},
        {"user": "b", "assertCitation": True, "assertFallback": True},
        {"prompt": 3},
        prompt="also a prompt",
        mustNotAppear=["y"],
    )
    assert issues(broken) == {
        ("C-1", "prompt", "give either 'prompt' or 'conversation', not both"),
        ("C-1", "must_not_appear", "with 'conversation', expectations belong in each turn"),
        ("C-1", "conversation[0].mustNotApear", "unknown field (did you mean 'mustNotAppear'?)"),
        (
            "C-1",
            "conversation[1].expected_behavior",
            "conflicting behaviours given by assert_citation and assert_fallback",
        ),
        ("C-1", "conversation[2].prompt", "must be a string, got int 3"),
    }


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        pytest.param(entry(category=3), ("category", "must be a string, got int 3"), id="number"),
        pytest.param(
            entry(citation_must_contain="x"),
            ("citation_must_contain", "must be a list of strings, got a string"),
            id="string-for-list",
        ),
        pytest.param(
            conversation({"user": "a", "assertNoAgreement": "yes"}),
            ("conversation[0].no_agreement", "must be true or false, got a string"),
            id="string-for-boolean",
        ),
        pytest.param(
            entry(pinned_response="a", pinned_tolerance="semantic", pinned_min_similarity="0.5"),
            ("pinned_min_similarity", "must be a number in (0, 1]"),
            id="string-for-number",
        ),
        pytest.param(
            entry(pinned_response="a", pinned_tolerance="semantic", pinned_min_similarity=1.5),
            ("pinned_min_similarity", "must be a number in (0, 1]"),
            id="similarity-above-1",
        ),
        pytest.param(
            entry(pinned_tolerance="fuzzy", pinned_response="a"),
            ("pinned_tolerance", "'fuzzy' is not one of: 'exact', 'normalized' or 'semantic'"),
            id="unknown-tolerance",
        ),
        pytest.param(
            entry(pinnedTolerance="semantic"),
            ("pinned_tolerance", "needs a pinned_response"),
            id="tolerance-without-pin",
        ),
        pytest.param(
            entry(pinned_response="a", pinned_min_similarity=0.5),
            ("pinned_min_similarity", "only applies to pinned_tolerance: semantic"),
            id="similarity-without-semantic",
        ),
        pytest.param(
            entry(pinned_response=" "), ("pinned_response", "must not be empty"), id="blank-pin"
        ),
        pytest.param(
            conversation({"user": "a", "x": 1}),
            ("conversation[0].x", "unknown field"),
            id="unknown-turn-field",
        ),
        pytest.param(
            conversation({"user": "a", "prompt": "b"}),
            ("conversation[0].prompt", "given twice, as 'user' and 'prompt'"),
            id="turn-spelled-twice",
        ),
        pytest.param(
            conversation({"no_agreement": True}),
            ("conversation[0].prompt", "required field missing (camelCase form: 'user')"),
            id="turn-without-prompt",
        ),
        pytest.param(
            conversation("hi"),
            ("conversation[0]", "a turn must be a mapping of fields, got a string"),
            id="turn-not-a-mapping",
        ),
        pytest.param(
            conversation(), ("conversation", "must be a non-empty list of turns"), id="no-turns"
        ),
        pytest.param(
            {"id": "P-1", "category": "c"},
            ("prompt", "required field missing (or give a 'conversation')"),
            id="neither-prompt-nor-conversation",
        ),
        pytest.param(
            entry(prompt=None), ("prompt", "must be a string, got nothing (null)"), id="null-prompt"
        ),
    ],
)
def test_each_rule_names_the_field(bad: dict[str, object], expected: tuple[str, str]) -> None:
    assert issues(bad) == {(str(bad["id"]), *expected)}


def test_null_optional_fields_count_as_absent() -> None:
    nulls = entry(must_not_appear=None, notes=None, pinnedTolerance=None, expected_behavior=None)
    with_nulls = parse_suite(json.dumps([nulls]), source="s.json", fmt="json")
    without = parse_suite(json.dumps([entry()]), source="s.json", fmt="json")
    assert with_nulls.content_hash == without.content_hash


def test_behaviour_flags_that_agree_are_no_conflict() -> None:
    turn = {"user": "a", "expectedBehavior": "security_clearance_fallback", "assertFallback": True}
    suite = parse_suite(json.dumps([conversation(turn)]), source="s.json", fmt="json")
    assert suite.prompts[0].turns[0].expected_behavior == "fallback"


def test_a_key_repeated_inside_a_turn_is_located() -> None:
    text = "- id: A-1\n  category: x\n  conversation:\n    - user: a\n      user: b\n"
    with pytest.raises(SuiteValidationError) as caught:
        parse_suite(text, source="s.yaml", fmt="yaml")
    (issue,) = caught.value.issues
    assert (issue.prompt_id, issue.field) == ("A-1", "conversation[0].user")
    assert issue.message == "field given more than once in the same entry"
