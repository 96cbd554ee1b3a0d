"""The report's header carries the whole gate table (status and detail of each gate, the one
that set the decision marked), the verifier's chain, and quotes a person can read: no chunk
hashes, no Markdown markup from the vault."""

from __future__ import annotations

import re
from pathlib import Path

from audit_pipeline.reports.formatting import plain_justification
from audit_pipeline.reports.write import ReportPaths, write_report
from audit_pipeline.scoring.gates import GateResult
from audit_pipeline.scoring.rules import release_decision
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.reports.builders import AuditBuilder, write_all

AUDIT_ID = "20261124T080000Z-vault_bot-eeee5555"
CHUNK = "1aa29bf5d93c03657e7d9620116374be71e0498bc912dad3a7980de3160f0c10"
# Three gates at ERROR, as in the sample audit: the badge names only the first.
GATES = [
    GateResult("completeness", "pass", "complete", "enough answered and verified"),
    GateResult("risk", "warn", 0.188, "0.188 > 0.10 (warn zone)"),
    GateResult("hallucinations", "error", 4, "4 > 0"),
    GateResult("citation_errors", "error", 5, "5 > 3"),
    GateResult("pass_rate", "error", 0.667, "66.7% < 85%"),
    GateResult("fallback_errors", "warn", 1, "1 > 0"),
]
JUSTIFICATION = (
    "Contradicted (specifics): '24 hours' where the evidence says '4 hours'. Closest evidence "
    f"({CHUNK}): '- **All access is revoked within 4 hours** recorded in the HR system'."
)


def _report(tmp_path: Path) -> ReportPaths:
    release = release_decision(GATES)
    audit = AuditBuilder(AUDIT_ID, decision=release.decision, decision_rule=release.rule)
    audit.turn("AC-001", "access", "When is access revoked?", "Access is revoked in 24 hours.")
    audit.claim(
        "AC-001", "Access is revoked in 24 hours.", "contradicted", probability=0.05,
        justification=JUSTIFICATION, verifier="local", verifier_version="local-5",
        evidence=[{"chunk_id": "c1", "document": "access-control-policy.md",
                   "section": "4.3 Leavers",
                   "text": "### 4.3 Leavers\n- **All access is revoked within 4 hours**."}],
    )  # fmt: skip
    store = Warehouse(tmp_path / "w.duckdb")
    write_all(store, audit)
    return write_report(store, AUDIT_ID, tmp_path / "out", gates=GATES)


def test_the_header_lists_every_gate_with_the_one_that_set_the_decision(tmp_path: Path) -> None:
    paths = _report(tmp_path)
    text = paths.markdown.read_text(encoding="utf-8")
    page = paths.html.read_text(encoding="utf-8")
    header = text.split("## Summary")[0]

    assert "Do not deploy: gate hallucinations 4 > 0." in header
    for gate in GATES:
        row = next(line for line in header.splitlines() if line.startswith(f"| {gate.name} |"))
        assert f"| {gate.status.upper()} |" in row
        assert gate.detail.replace("<", "\\<") in row or gate.detail in row
    marked = [line for line in header.splitlines() if "sets the decision" in line]
    assert marked == ["| hallucinations | ERROR | 4 > 0 ← sets the decision |"]

    masthead = page.split('id="summary"')[0]
    assert masthead.count('<td class="mono">') == len(GATES)
    for gate in GATES:
        assert f'<td class="mono">{gate.name}</td>' in masthead
    assert re.search(r'<tr class="sets"><td class="mono">hallucinations</td>', masthead)
    assert "66.7% &lt; 85%" in masthead


def test_the_header_names_the_verifiers_chain(tmp_path: Path) -> None:
    text = _report(tmp_path).markdown.read_text(encoding="utf-8")
    chain = next(line for line in text.splitlines() if line.startswith("| Verifier's chain |"))
    assert "local local-5" in chain and "decided by" in chain


def test_quotes_carry_no_chunk_hash_and_no_markdown_markup(tmp_path: Path) -> None:
    paths = _report(tmp_path)
    for text in (paths.markdown.read_text(encoding="utf-8"), paths.html.read_text("utf-8")):
        assert CHUNK not in text
        assert "**All access" not in text and "\\*\\*All access" not in text
        assert "### 4.3" not in text and "\\#\\#\\# 4.3" not in text
    assert plain_justification(JUSTIFICATION) == (
        "Contradicted (specifics): '24 hours' where the evidence says '4 hours'. Closest "
        "evidence: 'All access is revoked within 4 hours recorded in the HR system'."
    )
