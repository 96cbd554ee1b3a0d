from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audit_pipeline.targets import TargetConfigError, build_target, parse_target_config, run_suite
from audit_pipeline.targets.replay import ReplayTarget
from audit_pipeline_tests.targets.helpers import conversation, single, suite_of

SUITE = suite_of(
    single("ENC-1", "How is data encrypted at rest?"),
    single("SUB-1", "Who are your subprocessors?"),
    conversation("CHAIN-1", "Tell me about backups", "You said daily, right?"),
)


def replay(path: Path, match_on: str = "auto", base_dir: Path | None = None) -> ReplayTarget:
    config = parse_target_config(
        "prod-log", {"type": "replay", "path": str(path), "match_on": match_on}
    )
    target = build_target("prod-log", config, base_dir=base_dir, retriever=object())
    assert isinstance(target, ReplayTarget)
    return target


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_jsonl_by_prompt_id_with_context_and_a_missing_prompt(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "answers.jsonl",
        [
            {
                "prompt_id": "ENC-1",
                "prompt": "How is data encrypted at rest?",
                "response": "AES-256 [source: encryption.md#At rest]",
                "context": ["Data is encrypted with AES-256."],
                "model": "gpt-4o-mini",
            },
            {"prompt_id": "CHAIN-1", "turn": 0, "response": "Backups run nightly."},
            {"prompt_id": "CHAIN-1", "turn": 1, "response": "No, I said nightly."},
        ],
    )
    target = replay(path, "prompt_id")
    assert target.missing(SUITE) == [("SUB-1", 0)]
    records = run_suite(SUITE, target, audit_id="a", backoff_base_s=0)
    enc, sub, chain0, chain1 = records
    assert enc.response == "AES-256 [source: encryption.md#At rest]"
    assert enc.context == ("Data is encrypted with AES-256.",)
    assert enc.model == "gpt-4o-mini"
    assert enc.citations[0].file == "encryption.md"
    assert sub.response is None and sub.attempts == 1
    assert "no recorded answer for prompt 'SUB-1' turn 0" in (sub.error or "")
    assert (chain0.response, chain1.response) == ("Backups run nightly.", "No, I said nightly.")


def test_csv_matched_on_normalised_prompt_text(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, ["prompt_id", "prompt", "response", "context"])
        writer.writeheader()
        writer.writerow(
            {
                "prompt_id": "",
                "prompt": "  how is DATA encrypted\tat rest? ",
                "response": "AES-256.",
                "context": json.dumps(["passage one", "passage two"]),
            }
        )
        writer.writerow(
            {
                "prompt_id": "",
                "prompt": "Who are your subprocessors?",
                "response": "",
                "context": "",
            }
        )
    target = replay(path, "prompt")
    assert target.missing(SUITE) == [("CHAIN-1", 0), ("CHAIN-1", 1)]
    answer = target.lookup("ENC-1", 0, "How is data encrypted at rest?")
    assert answer is not None and answer.context == ("passage one", "passage two")
    empty = target.lookup("SUB-1", 0, "Who are your subprocessors?")
    assert empty is not None and empty.response == "" and empty.context is None


def test_parquet_auto_falls_back_from_id_to_text(tmp_path: Path) -> None:
    table = pa.table(
        {
            "prompt_id": ["OLD-7", "SUB-1"],
            "prompt": ["How is data encrypted at rest?", "ignored text"],
            "response": ["AES", "We do not list them."],
            "turn": [0, 0],
        }
    )
    pq.write_table(table, tmp_path / "answers.parquet")
    target = replay(Path("answers.parquet"), "auto", base_dir=tmp_path)
    assert target.missing(SUITE) == [("CHAIN-1", 0), ("CHAIN-1", 1)]
    records = run_suite(SUITE.filter(ids=["ENC-1", "SUB-1"]), target, audit_id="a")
    assert [r.response for r in records] == ["AES", "We do not list them."]


def test_bad_rows_are_all_reported_with_their_position(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(
        '{"prompt_id": "A", "response": "ok"}\n'
        '{"prompt_id": "B"}\n'
        "not json\n"
        '{"response": "no key to match"}\n'
        '{"prompt_id": "C", "response": "x", "turn": -1, "context": [1, 2]}\n',
        encoding="utf-8",
    )
    with pytest.raises(TargetConfigError) as caught:
        replay(path)
    message = str(caught.value)
    assert "5 problem(s)" in message
    for fragment in (
        "line 2: column 'response' must be text, got nothing",
        "line 3: invalid JSON",
        "line 4: needs a 'prompt_id' or a 'prompt'",
        "line 5: column 'turn' must be a whole number",
        "line 5: column 'context' must be a list of strings",
    ):
        assert fragment in message


def test_conflicting_recordings_are_an_error_row(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "answers.jsonl",
        [
            {"prompt_id": "ENC-1", "response": "AES-256"},
            {"prompt_id": "ENC-1", "response": "Triple DES"},
            {"prompt_id": "SUB-1", "response": "none"},
            {"prompt_id": "SUB-1", "response": "none"},
        ],
    )
    records = run_suite(SUITE.filter(ids=["ENC-1", "SUB-1"]), replay(path), audit_id="a")
    assert "ambiguous recording for prompt 'ENC-1'" in (records[0].error or "")
    assert "line 1, line 2" in (records[0].error or "")
    assert records[1].response == "none"


def test_fingerprint_follows_the_recording_content(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", [{"prompt_id": "ENC-1", "response": "v1"}])
    before = replay(path).fingerprint()
    write_jsonl(path, [{"prompt_id": "ENC-1", "response": "v2"}])
    assert replay(path).fingerprint() != before


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(TargetConfigError, match="does not exist"):
        replay(tmp_path / "nope.jsonl")


def test_same_words_under_two_prompt_ids_keep_their_own_recorded_answers(
    tmp_path: Path,
) -> None:
    """The cache must not hand the first prompt's answer to the second (a hidden
    hallucination), neither in the run that fills it nor in a run served from it."""
    from audit_pipeline.targets.cache import ResponseCache

    suite = suite_of(
        single("ENC-A", "How often are keys rotated?"),
        single("ENC-B", "How often are keys rotated?"),
    )
    path = write_jsonl(
        tmp_path / "answers.jsonl",
        [
            {"prompt_id": "ENC-A", "response": "Every 12 months."},
            {"prompt_id": "ENC-B", "response": "Quarterly, and never audited."},
        ],
    )
    cache = ResponseCache(tmp_path / "cache")
    for expected_cached in (False, True):
        records = run_suite(
            suite, replay(path, "prompt_id"), audit_id="a", concurrency=1, cache=cache
        )
        assert [r.response for r in records] == [
            "Every 12 months.",
            "Quarterly, and never audited.",
        ]
        assert [r.from_cache for r in records] == [expected_cached] * 2


@pytest.mark.parametrize(
    ("body", "where"),
    [
        # The quote never closes: a lenient reader made rows 3 and 4 part of A's answer.
        ('A,"Keys rotate yearly\nB,Quarterly\nC,Monthly\n', "line 2 (read on to line 4"),
        ('A,"Keys are rotated "yearly" by ops\nB,Quarterly\n', "line 2"),
        ("A,Keys rotate yearly,extra\nB,Quarterly\n", "line 2: 3 fields where the header has 2"),
    ],
)
def test_a_malformed_csv_recording_is_refused_with_its_line(
    tmp_path: Path, body: str, where: str
) -> None:
    path = tmp_path / "answers.csv"
    path.write_text("prompt_id,response\n" + body, encoding="utf-8")
    with pytest.raises(TargetConfigError) as error:
        replay(path, "prompt_id")
    assert where in str(error.value)


def test_a_csv_row_swallowed_by_a_closed_quote_is_found_against_the_suite(
    tmp_path: Path,
) -> None:
    path = tmp_path / "answers.csv"
    path.write_text(
        'prompt_id,response\nENC-1,"AES-256 everywhere.\nSUB-1,""We use no subprocessors."""\n'
        "CHAIN-1,Nightly.\n",
        encoding="utf-8",
    )
    target = replay(path, "prompt_id")
    found = target.check_suite(SUITE, SUITE)
    assert found.swallowed_rows == [
        "lines 2-3: the answer of 'ENC-1' holds a line that starts with prompt id 'SUB-1' "
        "(an unbalanced quote swallowed a row?)"
    ]
    # A legitimate multi-line answer is not mistaken for one.
    path.write_text(
        'prompt_id,response\nENC-1,"AES-256.\nKeys, certificates and backups too."\n',
        encoding="utf-8",
    )
    assert replay(path, "prompt_id").check_suite(SUITE, SUITE).swallowed_rows == []


def test_coverage_and_unknown_prompt_ids(tmp_path: Path) -> None:
    from audit_pipeline.targets.replay import check_recording

    path = write_jsonl(
        tmp_path / "answers.jsonl",
        [
            {"prompt_id": "ENC-1", "response": "AES-256."},
            {"prompt_id": "ENC-9", "response": "Not in the suite."},
        ],
    )
    target = replay(path, "prompt_id")
    found = target.check_suite(SUITE, SUITE)
    assert (found.turns, found.missing, found.unknown_prompt_ids) == (4, 3, ["ENC-9"])
    assert found.coverage == pytest.approx(0.25)
    with pytest.raises(TargetConfigError, match=r"answers 1 of the 4 turns audited \(25%"):
        check_recording(target, SUITE, SUITE)  # default min_coverage 0.9
    only_enc = SUITE.filter(ids=["ENC-1"])
    assert check_recording(target, only_enc, SUITE) == [
        f"recording {path} answers prompt ids the suite does not have: ENC-9"
    ]


def test_a_directory_is_not_reported_as_missing(tmp_path: Path) -> None:
    (tmp_path / "answers.jsonl").mkdir()
    with pytest.raises(TargetConfigError, match=r"answers\.jsonl is a directory, not a file"):
        replay(tmp_path / "answers.jsonl")


@pytest.mark.parametrize(
    ("name", "content", "line"),
    [
        ("answers.csv", b"prompt_id,response\nENC-1,AES-256.\nSUB-1,Caf\xe9 Ltd.\n", 3),
        (
            "answers.jsonl",
            b'{"prompt_id": "ENC-1", "response": "AES-256."}\n'
            b'{"prompt_id": "SUB-1", "response": "Caf\xe9 Ltd."}\n',
            2,
        ),
    ],
)
def test_a_recording_that_is_not_utf8_names_the_file_and_line(
    tmp_path: Path, name: str, content: bytes, line: int
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(TargetConfigError) as error:
        replay(path)
    assert str(error.value).startswith(f"recording {path}, line {line}: not valid UTF-8")


def test_recorded_turns_the_suite_does_not_have_are_warned_about(tmp_path: Path) -> None:
    from audit_pipeline.targets.replay import check_recording

    path = write_jsonl(
        tmp_path / "answers.jsonl",
        [
            {"prompt_id": "ENC-1", "response": "AES-256."},
            {"prompt_id": "ENC-1", "turn": 1, "response": "And TLS 1.2 in transit."},
            {"prompt_id": "CHAIN-1", "turn": 0, "response": "Daily."},
            {"prompt_id": "CHAIN-1", "turn": 1, "response": "Yes, daily."},
            {"prompt": "What is your favourite colour?", "response": "Blue."},
        ],
    )
    target = replay(path, "auto")
    target.config = target.config.model_copy(update={"min_coverage": 0.5})
    assert check_recording(target, SUITE, SUITE) == [
        f"recording {path} has rows that answer no turn of the suite (ignored): line 2 (prompt "
        "'ENC-1' turn 1: the suite's prompt has 1 turn), line 5 (its prompt text matches no "
        "turn 0 of the suite)"
    ]
