"""Analysts teach the verifier (issue 32): an audit, a false alarm and a miss marked (the audit
re-scored at once by ``audit-pipeline rescore``), a re-audit with nothing changed (both claims
take the marked labels, the gates follow, the report and the CLI list them), then an edit of
the vault paragraph under one of them (its mark no longer applies, and the verdict says so).

The workspace is ``policy_workspace``: five recorded answers about three short policies, one of
which (ENC-2, keys rotated every 6 months where the standard says 12) the verifier flags.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audit_pipeline.cli import main
from audit_pipeline.commands.run_audit import RunOptions, run_audit
from audit_pipeline.config import load_config
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.policy_workspace import write_policy_workspace

pytestmark = pytest.mark.slow

RECORDED = RunOptions(target="recorded")


def _verdicts(store: Warehouse, audit_id: str) -> dict[str, dict[str, object]]:
    frame = store.query(
        "SELECT c.prompt_id, c.claim_id, v.label, v.decided_by, v.justification, v.carried_from,"
        " v.verifier_verdict FROM verdicts v JOIN claims c USING (audit_id, claim_id)"
        " WHERE v.audit_id = ?",
        [audit_id],
    )
    return {row["prompt_id"]: row for row in frame.to_dict("records")}


def _hallucinated(store: Warehouse, audit_id: str) -> set[str]:
    frame = store.query(
        "SELECT prompt_id FROM v_claim_verdicts WHERE audit_id = ? "
        "AND label IN ('unsupported', 'contradicted', 'stale')",
        [audit_id],
    )
    return set(frame["prompt_id"])


def _gate(outcome: object, name: str) -> tuple[str, str]:
    gate = next(g for g in outcome.gates if g.name == name)  # type: ignore[attr-defined]
    return gate.status, gate.detail


def test_marks_are_remembered_until_the_evidence_under_them_changes(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    config_path = write_policy_workspace(tmp_path)
    config = load_config(config_path)
    first = run_audit(config_path, config, RECORDED)
    assert first.success, first.errors
    store = Warehouse(config.duckdb_path)
    audit_1 = first.outcome.audit_id  # type: ignore[union-attr]
    before = _verdicts(store, audit_1)
    assert before["ENC-2"]["label"] == "contradicted"  # the false alarm to be
    assert before["ACC-2"]["label"] == "supported"  # the miss to be
    assert _hallucinated(store, audit_1) == {"ENC-2"}
    assert first.outcome.decision == "block"  # type: ignore[union-attr]

    # A false alarm from the command line, a miss from a marks file.
    assert (
        main(
            [
                "--config",
                str(config_path),
                "mark",
                audit_1,
                str(before["ENC-2"]["claim_id"]),
                "--label",
                "supported",
                "--note",
                "rotation moved to six months in the 2026 key policy",
                "--by",
                "alice",
            ]
        )
        == 0
    )
    marks_file = tmp_path / "marks.csv"
    marks_file.write_text(
        "audit_id,claim_id,label,note,by\n"
        f"{audit_1},{before['ACC-2']['claim_id']},unsupported,reviews are yearly,bob\n"
    )
    assert main(["--config", str(config_path), "mark", "--from", str(marks_file)]) == 0
    printed = capfd.readouterr().out
    assert "contradicted (specifics) -> supported by alice" in printed
    assert "supported (model) -> unsupported by bob" in printed

    # Re-scored now (the marks sensor's job, from the CLI): the same audit, nothing verified.
    assert main(["--config", str(config_path), "rescore"]) == 0
    out = capfd.readouterr().out
    assert (
        f"re-scored audit {audit_1} of target recorded: 5 verdicts carried over, 0 verified" in out
    )
    assert "marks      2 verdicts set by analysts' marks" in out
    assert _hallucinated(store, audit_1) == {"ACC-2"}
    assert store.scalar("SELECT count(*) FROM audits") == 1

    # Re-audit, nothing changed: every verdict carried over, the marks applied over them.
    assert main(["--config", str(config_path), "run", "--target", "recorded", "--report-only"]) == 0
    out = capfd.readouterr().out
    assert "marks      2 verdicts set by analysts' marks" in out
    audit_2 = store.scalar("SELECT audit_id FROM audits ORDER BY started_at DESC LIMIT 1")
    after = _verdicts(store, audit_2)
    assert {p: after[p]["carried_from"] for p in after} == dict.fromkeys(after, audit_1)
    enc, acc = after["ENC-2"], after["ACC-2"]
    assert (enc["label"], enc["decided_by"]) == ("supported", "mark")
    assert (acc["label"], acc["decided_by"]) == ("unsupported", "mark")
    assert "by alice" in str(enc["justification"]) and "six months" in str(enc["justification"])
    assert "by bob" in str(acc["justification"])
    assert "The verifier had said contradicted (decided by specifics)" in str(enc["justification"])
    # The verifier's own verdict is kept beside the marked one (carry-over reuses it).
    assert '"label": "contradicted"' in str(enc["verifier_verdict"])
    assert not any(
        isinstance(after[p]["verifier_verdict"], str) for p in ("RET-1", "ACC-1", "ENC-1")
    )
    # The gates count the marked labels: the hallucinated answer is now ACC-2, not ENC-2.
    assert _hallucinated(store, audit_2) == {"ACC-2"}
    risks = store.query(
        "SELECT prompt_id, risk FROM risk_scores WHERE audit_id = ? AND scope = 'response'",
        [audit_2],
    ).set_index("prompt_id")["risk"]
    assert risks["ENC-2"] == 0 and risks["ACC-2"] > 0
    report = (config.reports_dir / audit_2 / "report.html").read_text(encoding="utf-8")
    section = report[
        report.index('<section id="marks">') : report.index(
            "</section>", report.index('<section id="marks">')
        )
    ]
    assert "2 verdicts set by analysts&#x27; marks" in section
    assert "Key encryption keys are rotated automatically every 6 months." in section
    assert "Managers review the access rights of their team every quarter." in section
    markdown = (config.reports_dir / audit_2 / "report.md").read_text(encoding="utf-8")
    assert "## Set by analysts' marks" in markdown

    # The vault paragraph under ACC-2 changes: its mark no longer applies; ENC-2's still does.
    access = tmp_path / "vault" / "access.md"
    access.write_text(
        access.read_text().replace(
            "every quarter.", "every quarter and record each review in the access register."
        )
    )
    third = run_audit(config_path, config, RECORDED)
    assert third.success, third.errors
    audit_3 = third.outcome.audit_id  # type: ignore[union-attr]
    last = _verdicts(store, audit_3)
    acc = last["ACC-2"]
    assert acc["decided_by"] != "mark" and acc["label"] != "unsupported"
    assert "marked miss (unsupported) by bob" in str(acc["justification"])
    assert "evidence changed since: the mark no longer applies" in str(acc["justification"])
    assert (last["ENC-2"]["label"], last["ENC-2"]["decided_by"]) == ("supported", "mark")
    assert _hallucinated(store, audit_3) == set()
    assert _gate(third.outcome, "hallucinations")[0] == "pass"
    assert third.outcome.decision != "block"  # type: ignore[union-attr]
    report = (config.reports_dir / audit_3 / "report.html").read_text(encoding="utf-8")
    assert "1 mark no longer applies: evidence changed" in report
    # Nothing was deleted: both marks are still there, both live.
    marks = store.query("SELECT marked_by, live FROM v_marks ORDER BY marked_by")
    assert marks.values.tolist() == [["alice", True], ["bob", True]]
