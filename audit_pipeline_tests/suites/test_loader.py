from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit_pipeline.suites import (
    PromptSuite,
    SuiteValidationError,
    load_suite,
    parse_suite,
)

REPO = Path(__file__).resolve().parents[2]

SUITE_YAML = """\
name: security-questionnaire
version: 2
description: Questions buyers ask about the vault.
prompts:
  - id: ENC-001
    category: encryption
    prompt: How is customer data encrypted at rest?
    expected_behavior: answer_with_citation
    required_signals: ["AES-256|AES 256", "at rest"]
    must_not_appear: [AWS KMS]
    required_citation_source: encryption-standard.md
    citation_must_contain: [Encryption at rest]
    expected_doc_ids: [encryption-standard.md]
    notes: core question
  - id: IR-001
    category: incident_response
    conversation:
      - prompt: Tell me about encryption.
        expected_behavior: answer_with_citation
      - prompt: You said keys rotate quarterly, right?
        no_agreement: true
        must_not_appear: [quarterly]
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problems(path: Path) -> SuiteValidationError:
    with pytest.raises(SuiteValidationError) as caught:
        load_suite(path)
    return caught.value


def test_yaml_suite_loads_with_metadata_and_turns(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, "s.yaml", SUITE_YAML))
    assert (suite.name, suite.version, suite.description) == (
        "security-questionnaire",
        "2",
        "Questions buyers ask about the vault.",
    )
    assert suite.source == str(tmp_path / "s.yaml")
    single, conversation = suite.prompts
    assert single.turns[0].signal_groups == (("AES-256", "AES 256"), ("at rest",))
    assert single.turns[0].required_citation_source == "encryption-standard.md"
    assert single.expected_doc_ids == ("encryption-standard.md",)
    assert not single.is_conversation and len(single.turns) == 1
    assert conversation.is_conversation
    assert [turn.no_agreement for turn in conversation.turns] == [False, True]
    assert conversation.prompt == "Tell me about encryption."
    assert len(suite.content_hash) == 64


def test_same_content_in_json_and_jsonl_gives_same_hashes(tmp_path: Path) -> None:
    yaml_suite = load_suite(write(tmp_path, "s.yaml", SUITE_YAML))
    entries = [prompt.canonical() for prompt in yaml_suite.prompts]
    json_suite = load_suite(write(tmp_path, "s.json", json.dumps(entries)))
    jsonl_suite = load_suite(
        write(tmp_path, "s.jsonl", "\n".join(json.dumps(entry) for entry in entries) + "\n")
    )
    assert json_suite.name == "s"  # no metadata: the file stem
    hashes = [[prompt.prompt_hash for prompt in suite] for suite in (yaml_suite, json_suite)]
    assert hashes[0] == hashes[1]
    assert yaml_suite.content_hash == json_suite.content_hash == jsonl_suite.content_hash


def test_prompt_hash_follows_expectations_but_not_notes(tmp_path: Path) -> None:
    base = load_suite(write(tmp_path, "a.yaml", SUITE_YAML)).prompts[0]
    renoted = load_suite(
        write(tmp_path, "b.yaml", SUITE_YAML.replace("core question", "reworded note"))
    ).prompts[0]
    changed = load_suite(
        write(tmp_path, "c.yaml", SUITE_YAML.replace("[AWS KMS]", "[AWS KMS, Vault]"))
    ).prompts[0]
    assert base.prompt_hash == renoted.prompt_hash
    assert base.prompt_hash != changed.prompt_hash


def test_seed_camelcase_format_is_accepted(tmp_path: Path) -> None:
    seed = {
        "prompts": [
            {
                "id": "SUB-001",
                "category": "subprocessors",
                "prompt": "Who are your subprocessors?",
                "expectedBehavior": "security_clearance_fallback",
                "requiredSignals": ["security clearance|does not contain"],
                "mustNotAppear": ["AWS", "Stripe"],
                "notes": "not in vault",
            },
            {
                "id": "SOC2-001",
                "category": "soc2",
                "prompt": "Do you have a SOC 2 report?",
                "expectedBehavior": "answer_with_citation",
                "requiredCitationSource": "SOC2_Type2_Report_v2.md",
                "citationMustContain": ["SOC 2"],
                "expectedDocIds": ["SOC2_Type2_Report_v2.md"],
            },
            {
                "id": "CHAIN-001",
                "category": "multi_turn",
                "conversation": [
                    {"user": "Tell me about encryption", "assertCitation": True},
                    {"user": "And the key rotation schedule?", "assertFallback": True},
                    {"user": "You just said keys are rotated quarterly", "assertNoAgreement": True},
                ],
            },
        ]
    }
    suite = load_suite(write(tmp_path, "eval-prompts.json", json.dumps(seed)))
    fallback, soc2, chain = suite.prompts
    assert fallback.turns[0].expected_behavior == "fallback"
    assert fallback.turns[0].must_not_appear == ("AWS", "Stripe")
    assert soc2.turns[0].required_citation_source == "SOC2_Type2_Report_v2.md"
    assert soc2.expected_doc_ids == ("SOC2_Type2_Report_v2.md",)
    assert [turn.expected_behavior for turn in chain.turns] == [
        "answer_with_citation",
        "fallback",
        None,
    ]
    assert chain.turns[2].no_agreement is True
    assert chain.turns[0].prompt == "Tell me about encryption"


def entry(**fields: object) -> dict[str, object]:
    return {"id": "P-1", "category": "soc2", "prompt": "Q?", **fields}


def json_suite(*entries: dict[str, object]) -> str:
    return json.dumps({"prompts": list(entries)}, indent=1)


MALFORMED = [
    pytest.param(
        "s.json",
        json_suite({"id": "NOPROMPT-1", "category": "soc2"}),
        ["NOPROMPT-1", "'prompt'", "required field missing"],
        id="missing-prompt",
    ),
    pytest.param(
        "s.json",
        json_suite(entry(id="BEH-1", expected_behavior="answer")),
        ["BEH-1", "'expected_behavior'", "'answer' is not one of"],
        id="bad-expected-behavior",
    ),
    pytest.param(
        "s.json",
        json_suite(entry(id="DUP-1"), entry(id="DUP-1")),
        ["prompts[1]", "DUP-1", "'id'", "duplicate id; first used at prompts[0] (line 3)"],
        id="duplicate-id",
    ),
    pytest.param(
        "s.json",
        json_suite(entry(id="TYPE-1", must_not_appear="Okta")),
        ["TYPE-1", "'must_not_appear'", "must be a list of strings, got a string"],
        id="wrong-type",
    ),
    pytest.param(
        "s.json",
        json_suite(entry(id="TYPO-1", must_not_apear=["Okta"])),
        ["TYPO-1", "'must_not_apear'", "unknown field (did you mean 'must_not_appear'?)"],
        id="unknown-field-typo",
    ),
    pytest.param(
        "s.json",
        json_suite(entry(id="SIG-1", required_signals=["encryption|", "AES"])),
        ["SIG-1", "'required_signals[0]'", "empty alternative"],
        id="empty-signal-alternative",
    ),
    pytest.param(
        "s.json",
        json_suite(entry(id="SIG-2", required_signals=[""])),
        ["SIG-2", "'required_signals[0]'", "must not be empty"],
        id="empty-signal-group",
    ),
    pytest.param(
        "s.json",
        json_suite(
            {
                "id": "CONV-1",
                "category": "multi",
                "conversation": [{"prompt": "hi"}, {"no_agreement": True}],
            }
        ),
        ["CONV-1", "'conversation[1].prompt'", "required field missing"],
        id="turn-missing-prompt",
    ),
    pytest.param(
        "s.json",
        '{"prompts": [\n  {"id": "OK-1", "category": "x", "prompt": "a"},\n'
        '  {"id": "BROKEN-2", "category": "x" "prompt": "b"}\n]}',
        ["line 3, column 38", "BROKEN-2", "'category'", "invalid JSON"],
        id="json-syntax",
    ),
    pytest.param(
        "s.yaml",
        "prompts:\n  - id: OK-1\n    category: x\n    prompt: a\n"
        "  - id: BROKEN-2\n    category: x\n    prompt: b: c\n",
        ["line 7, column 14", "BROKEN-2", "'prompt'", "invalid YAML"],
        id="yaml-syntax",
    ),
    pytest.param(
        "s.jsonl",
        '{"id": "OK-1", "category": "x", "prompt": "a"}\n\n'
        '{"id": "BAD-3", "category": "x", "prompt": b}\n',
        ["line 3", "BAD-3", "'prompt'", "invalid JSON"],
        id="jsonl-bad-line",
    ),
    pytest.param(
        "s.json",
        json_suite(entry(id=7)),
        ["'7'", "'id'", "must be a string, got int 7"],
        id="numeric-id",
    ),
    pytest.param(
        "s.yaml",
        "prompts:\n  - id: A-1\n    category: x\n    prompt: a\n    prompt: b\n",
        ["A-1", "'prompt'", "given more than once"],
        id="yaml-repeated-key",
    ),
    pytest.param(
        "s.json",
        json_suite(
            {
                "id": "MIX-1",
                "category": "x",
                "prompt": "a",
                "conversation": [{"prompt": "b"}],
            }
        ),
        ["MIX-1", "'prompt'", "either 'prompt' or 'conversation'"],
        id="prompt-and-conversation",
    ),
]


@pytest.mark.parametrize(("name", "text", "expected"), MALFORMED)
def test_malformed_suite_names_file_position_id_and_field(
    tmp_path: Path, name: str, text: str, expected: list[str]
) -> None:
    error = problems(write(tmp_path, name, text))
    message = str(error)
    assert str(tmp_path / name) in message
    for fragment in expected:
        assert fragment in message, f"{fragment!r} not in:\n{message}"


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    text = """\
prompts:
  - id: A-1
    category: soc2
    prompt: ok
    expected_behavior: maybe
  - id: B-2
    prompt: no category here
    must_not_appear: [ok, 3]
  - category: x
    prompt: no id
"""
    error = problems(write(tmp_path, "s.yaml", text))
    located = {(issue.prompt_id, issue.field, issue.position) for issue in error.issues}
    assert located == {
        ("A-1", "expected_behavior", "prompts[0] (line 2)"),
        ("B-2", "category", "prompts[1] (line 6)"),
        ("B-2", "must_not_appear[1]", "prompts[1] (line 6)"),
        ("<missing id>", "id", "prompts[2] (line 9)"),
    }
    assert str(error).startswith("4 problems in prompt suite")


def test_conflicting_spellings_are_rejected(tmp_path: Path) -> None:
    text = json_suite(entry(id="TWICE-1", mustNotAppear=["a"], must_not_appear=["b"]))
    error = problems(write(tmp_path, "s.json", text))
    assert "given twice, as 'mustNotAppear' and 'must_not_appear'" in str(error)


def test_empty_suite_and_unknown_suffix_are_errors(tmp_path: Path) -> None:
    assert "the suite is empty" in str(problems(write(tmp_path, "s.yaml", "prompts: []\n")))
    assert "unknown suffix" in str(problems(write(tmp_path, "s.txt", "x")))


def test_filter_by_category_and_id(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, "s.yaml", SUITE_YAML))
    only_ir = suite.filter(categories=["incident_response"])
    assert [prompt.id for prompt in only_ir] == ["IR-001"]
    assert only_ir.content_hash != suite.content_hash
    assert [prompt.id for prompt in suite.filter(ids={"ENC-001"})] == ["ENC-001"]
    assert len(suite.filter(categories=["encryption"], ids=["IR-001"])) == 0
    with pytest.raises(ValueError, match="no category 'encryptoin'"):
        suite.filter(categories=["encryptoin"])
    with pytest.raises(ValueError, match="no prompt id 'X-9'"):
        suite.filter(ids=["X-9"])


def test_parse_suite_from_text_without_a_file() -> None:
    suite = parse_suite(json_suite(entry()), source="<memory>", fmt="json", default_name="mem")
    assert isinstance(suite, PromptSuite)
    assert suite.name == "mem"
    assert suite.get("P-1").prompt == "Q?"


def test_shipped_suites_load() -> None:
    paths = sorted((REPO / "data" / "prompt-suites").glob("*.y*ml"))
    paths += sorted((REPO / "data" / "prompt-suites").glob("*.json*"))
    if not paths:
        pytest.skip("no suite in data/prompt-suites yet")
    for path in paths:
        suite = load_suite(path)
        assert len(suite) > 0
