"""Waivers: accepted failures pass the gates until they expire; an expired one fails loudly."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import yaml

from audit_pipeline.records.assertions import AssertionRow, CheckedClaim
from audit_pipeline.scoring.waivers import (
    WaiverError,
    load_waivers,
    split,
    waive_claims,
    waive_rows,
)
from audit_pipeline_tests.helpers import write_audit_config

TODAY = dt.date(2026, 11, 25)


def _file(tmp_path: Path, *entries: dict) -> Path:  # type: ignore[type-arg]
    path = tmp_path / "waivers.yaml"
    path.write_text(yaml.safe_dump({"waivers": list(entries)}, sort_keys=False))
    return path


def test_problems_name_the_entry_and_field(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        {"prompt_id": "A", "assertion": "must_not_appear", "reason": "r", "expires": "soon"},
        {"prompt_id": "B", "assertion": "made_up", "reason": "r", "expires": "2027-01-01"},
        {"prompt_id": "C", "reason": "r", "expires": "2027-01-01"},
    )
    with pytest.raises(WaiverError) as error:
        load_waivers(path)
    message = str(error.value)
    assert f"{path}, line 5: waivers[0], field 'expires': required, a date" in message
    assert f"{path}, line 7: waivers[1], field 'assertion': 'made_up' is not one of" in message
    assert f"{path}, line 10: waivers[2]: name the failure" in message


SUITE_IDS = ("ENC-001", "ENC-002", "SUB-001")


def _load_text(tmp_path: Path, text: str | bytes) -> list:  # type: ignore[type-arg]
    path = tmp_path / "waivers.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return load_waivers(path, SUITE_IDS)


def test_waivers_must_name_prompts_of_the_suite(tmp_path: Path) -> None:
    known = (
        "waivers:\n  - prompt_id: ENC-*\n    claim: quarterly\n    reason: r\n"
        "    expires: 2027-01-01\n"
    )
    assert [w.prompt_id for w in _load_text(tmp_path, known)] == ["ENC-*"]
    typo = known.replace("ENC-*", "ENC-01")
    with pytest.raises(WaiverError) as error:
        _load_text(tmp_path, typo)
    assert str(error.value) == (
        f"{tmp_path / 'waivers.yaml'}, line 2: waivers[0], field 'prompt_id': 'ENC-01' names "
        "no prompt of the suite"
    )


@pytest.mark.parametrize(
    ("prompt_id", "claim", "field", "line"),
    [
        ("*", ".*", "prompt_id", 2),
        ("*-00?", "AWS", "prompt_id", 2),  # every prompt of the suite
        ("ENC-002", ".", "claim", 3),  # any claim of that prompt
        ("ENC-002", "x?", "claim", 3),
    ],
)
def test_a_catch_all_needs_all_true(
    tmp_path: Path, prompt_id: str, claim: str, field: str, line: int
) -> None:
    entry = (
        f"waivers:\n  - prompt_id: '{prompt_id}'\n    claim: '{claim}'\n    reason: known\n"
        "    expires: 9999-12-31\n"
    )
    with pytest.raises(WaiverError) as error:
        _load_text(tmp_path, entry)
    assert str(error.value).startswith(
        f"{tmp_path / 'waivers.yaml'}, line {line}: waivers[0], field '{field}': covers "
    )
    assert "a catch-all needs 'all: true'" in str(error.value)
    [waiver] = _load_text(tmp_path, entry + "    all: true\n")
    assert waiver.covers_all


def test_a_malformed_waivers_file_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(WaiverError, match=r"YAML syntax error at line 3, column 5"):
        _load_text(tmp_path, "waivers:\n  - prompt_id: ENC-001\n    : no key\n")
    with pytest.raises(WaiverError, match=r"waivers\.yaml, line 2: not valid UTF-8"):
        _load_text(tmp_path, b"waivers:\n  - reason: caf\xe9\n")


def test_an_active_waiver_passes_the_row_and_drops_the_claim_an_expired_one_does_not() -> None:
    active, expired = (
        load_like("SUB-*", "must_not_appear", "AWS", "2026-12-31"),
        load_like("SUB-*", "must_not_appear", "AWS", "2026-11-24"),
    )
    status = split([active, expired], TODAY)
    assert status.active == (active,) and status.expired == (expired,)

    row = AssertionRow("SUB-001", 0, "subprocessors", "must_not_appear", False, '"AWS" found')
    (waived,), applied = waive_rows([row], status.active)
    assert waived.passed and waived.detail.startswith("waived until 2026-12-31 (known): ")
    assert applied[0]["assertion"] == "must_not_appear"
    (kept,), _ = waive_rows([row], ())
    assert kept == row

    claims = {
        ("SUB-001", 0): [
            CheckedClaim(0, 10, "We use AWS.", "unsupported"),
            CheckedClaim(11, 30, "We use Stripe.", "unsupported"),
            CheckedClaim(31, 40, "AWS is good.", "supported"),
        ]
    }
    labels, claimed = waive_claims(claims, status.active)
    assert labels == {("SUB-001", 0): ["unsupported", "supported"]}
    assert [c["claim"] for c in claimed] == ["We use AWS."]


def load_like(prompt: str, assertion: str, claim: str, expires: str):  # type: ignore[no-untyped-def]
    import re

    from audit_pipeline.scoring.waivers import Waiver

    return Waiver(
        prompt, "known", dt.date.fromisoformat(expires), assertion, re.compile(claim, re.I)
    )


@pytest.mark.slow
def test_waived_failures_pass_the_gate_and_an_expired_waiver_fails_it(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    from audit_pipeline.commands.run_audit import RunOptions, run_audit
    from audit_pipeline.config import load_config
    from audit_pipeline_tests.cli.helpers import cli

    ids = ("SOC2-001", "ENC-002")  # ENC-002's recorded answer invents a quarterly rotation
    config_path = write_audit_config(tmp_path, sample_index_dir)
    first = run_audit(config_path, load_config(config_path), RunOptions(target="recorded", ids=ids))
    assert first.success and first.outcome is not None
    failed = {(f["prompt_id"], f["assertion"]) for f in first.outcome.failures}
    assert ("ENC-002", "must_not_appear") in failed
    assert first.outcome.summary["hallucinations"] >= 1

    def waivers(expires: dt.date) -> list[dict]:  # type: ignore[type-arg]
        entries = [
            {"prompt_id": p, "assertion": a, "reason": "tracked in BOT-42", "expires": expires}
            for p, a in sorted(failed)
        ]
        # The verifier flags claims of both answers: accept every flagged claim of both.
        claims = [
            {"prompt_id": p, "claim": ".", "reason": "BOT-42", "expires": expires, "all": True}
            for p in ids
        ]
        return [*entries, *claims]

    today = dt.datetime.now(dt.UTC).date()
    waivers_file = _file(tmp_path, *waivers(today + dt.timedelta(days=30)))
    config_path = write_audit_config(tmp_path, sample_index_dir, waivers=str(waivers_file))
    run = ["run", "--id", "SOC2-001", "--id", "ENC-002", "--json", str(tmp_path / "out.json")]

    passed = cli(config_path, *run)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    printed = passed.stdout
    assert "waived (" in printed and "ENC-002 turn 0 must_not_appear: tracked in BOT-42" in printed
    summary = json.loads((tmp_path / "out.json").read_text())
    assert summary["summary"]["hallucinations"] == 0 and summary["summary"]["failed"] == 0
    assert {g["name"]: g["status"] for g in summary["gates"]}["waivers"] == "pass"
    assert len(summary["waivers"]["applied"]) >= len(failed)

    _file(tmp_path, *waivers(today - dt.timedelta(days=1)))
    expired = cli(config_path, *run)
    assert expired.returncode == 1, expired.stdout + expired.stderr
    err = expired.stderr
    assert "error: waiver expired: ENC-002 must_not_appear" in err
    summary = json.loads((tmp_path / "out.json").read_text())
    gate = {g["name"]: g for g in summary["gates"]}["waivers"]
    assert gate["status"] == "error" and "expired" in gate["detail"]
    assert summary["summary"]["hallucinations"] >= 1  # nothing was waived


def test_a_broken_waivers_file_stops_the_run_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from audit_pipeline.cli import main

    waivers_file = tmp_path / "waivers.yaml"
    waivers_file.write_text("waivers:\n  - prompt_id: A\n    assertion: behavior\n")
    config_path = write_audit_config(tmp_path, waivers=str(waivers_file))

    assert main(["--config", str(config_path), "run", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith(f"error: {waivers_file}, line 2: waivers[0], field 'reason'")
        and err.count("\n") == 1
    )
