"""The analyst notebook runs top to bottom against a real warehouse and shows the real rows.

The notebook is executed by nbclient in a ``python3`` kernel, as an analyst would run it, so a
broken cell, a plot that renders nothing or a table that drops the claims is caught here
rather than by the first person who opens it. The helpers it imports are tested directly
below, in particular the choice of the file to read: a notebook must never hold the live
warehouse while an audit writes to it.
"""

from __future__ import annotations

import html
import json
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import nbformat
import pandas as pd
import pytest
from nbclient import NotebookClient

from audit_pipeline import analysis
from audit_pipeline.reports.formatting import CRUMB
from audit_pipeline.warehouse.store import Warehouse, WarehouseError
from audit_pipeline_tests.reports.builders import AuditBuilder, write_all

REPO_ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO_ROOT / "notebooks" / "audit_analysis.ipynb"

PREVIOUS_ID = "20261116T080000Z-vault_bot-aaaa1111"
LATEST_ID = "20261123T080000Z-vault_bot-bbbb2222"
RECORDED_ID = "20261120T080000Z-recorded-cccc3333"

CONTRADICTED = "Encryption keys are rotated quarterly, every 90 days."
UNSUPPORTED = "Our DPO can be reached at dpo@tallyhawk.example."
SUPPORTED = "Individuals can request access and erasure."
OLD_FINDING = "The DPO can be reached by phone."
KEY_ROTATION = {
    "chunk_id": "enc-6",
    "document": "encryption-standard.md",
    "section": "6. Key Rotation",
    "text": "Key encryption keys are rotated automatically every 12 months (annually).",
}


def _previous() -> AuditBuilder:
    audit = AuditBuilder(
        PREVIOUS_ID, started_at=datetime(2026, 11, 16, 8, 0, tzinfo=UTC), decision="deploy"
    )
    audit.turn("ENC-002", "encryption", "How often are keys rotated?", "Annually.")
    audit.claim("ENC-002", "Annually.", "supported", evidence=[KEY_ROTATION])
    audit.assertion("ENC-002", "required_signals", True)
    audit.turn("GDPR-002", "gdpr", "Which rights can individuals exercise?", SUPPORTED)
    audit.claim("GDPR-002", SUPPORTED, "supported")
    audit.assertion("GDPR-002", "required_signals", True)
    audit.turn("GDPR-003", "gdpr", "Do you have a DPO?", OLD_FINDING)
    audit.claim("GDPR-003", OLD_FINDING, "unsupported", probability=0.2)
    audit.assertion("GDPR-003", "required_signals", True)
    return audit


def _latest() -> AuditBuilder:
    audit = AuditBuilder(LATEST_ID, decision="block")
    audit.turn("ENC-002", "encryption", "How often are keys rotated?", CONTRADICTED)
    audit.claim("ENC-002", CONTRADICTED, "contradicted", probability=0.03, evidence=[KEY_ROTATION])
    audit.assertion("ENC-002", "required_signals", False, "missing: 12 months|annual")
    audit.assertion("ENC-002", "must_not_appear", False, "found: quarterly")
    audit.turn("GDPR-003", "gdpr", "Do you have a DPO?", UNSUPPORTED)
    audit.claim(
        "GDPR-003",
        UNSUPPORTED,
        "unsupported",
        probability=0.12,
        evidence=[
            {
                "chunk_id": "priv-7",
                "document": "global-privacy-policy.md",
                "section": "7. Data Protection Officer",
                "text": "Contact the privacy team at privacy@tallyhawk.example.",
            }
        ],
    )
    audit.assertion("GDPR-003", "must_not_appear", False, "found: dpo@tallyhawk")
    audit.turn("GDPR-002", "gdpr", "Which rights can individuals exercise?", SUPPORTED)
    audit.claim("GDPR-002", SUPPORTED, "supported")
    audit.assertion("GDPR-002", "required_signals", True)
    return audit


def _recorded() -> AuditBuilder:
    """A second target with a single audit: a second trend line, nothing to compare."""
    audit = AuditBuilder(
        RECORDED_ID,
        target="recorded",
        started_at=datetime(2026, 11, 20, 8, 0, tzinfo=UTC),
        decision="deploy",
    )
    audit.turn("ENC-002", "encryption", "How often are keys rotated?", "Annually.")
    audit.claim("ENC-002", "Annually.", "supported", evidence=[KEY_ROTATION])
    audit.assertion("ENC-002", "required_signals", True)
    return audit


@pytest.fixture(scope="module")
def warehouse_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two audits of ``vault_bot`` and one of ``recorded``, written through the real store.

    The builder marks audits ``succeeded``; the scoring stage marks them ``finished``, which
    is what ``v_trend`` counts, so the fixture says what the pipeline says.
    """
    store = Warehouse(tmp_path_factory.mktemp("notebook") / "audit.duckdb")
    write_all(store, _previous(), _latest(), _recorded())
    store.execute("UPDATE audits SET status = 'finished'")
    return store.path


# -- running the notebook ----------------------------------------------------------------------

PROBE = "import json, sys\nprint('KERNEL ' + json.dumps({'prefix': sys.prefix}))"


def _execute(warehouse: Path, parameters: str | None = None) -> nbformat.NotebookNode:
    """Run the notebook in memory (the file on disk is not touched) with a kernel probe last.

    ``parameters`` replaces the cell tagged ``parameters``, as papermill would.
    """
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    if parameters is not None:
        _tagged(notebook, "parameters").source = parameters
    notebook.cells.append(nbformat.v4.new_code_cell(PROBE, metadata={"tags": ["probe"]}))
    client = NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(REPO_ROOT)}},
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(analysis.ENV_WAREHOUSE, str(warehouse))
        client.execute()
    return notebook


def _tagged(notebook: nbformat.NotebookNode, tag: str) -> nbformat.NotebookNode:
    cells = [c for c in notebook.cells if tag in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, f"expected one cell tagged {tag!r}, found {len(cells)}"
    return cells[0]


def _text(cell: nbformat.NotebookNode) -> str:
    """Everything a cell showed as text: streams, plain and HTML reprs (HTML unescaped)."""
    parts: list[str] = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            parts.append(output["text"])
        data: dict[str, Any] = output.get("data", {})
        parts.append(data.get("text/plain", ""))
        parts.append(html.unescape(data.get("text/html", "")))
    return "\n".join(parts)


def _mime_types(cell: nbformat.NotebookNode) -> set[str]:
    return {mime for output in cell.get("outputs", []) for mime in output.get("data", {})}


@dataclass(frozen=True)
class Expected:
    """What the notebook must show, read from the warehouse itself, not from the fixture's
    source, so the same assertions hold for any warehouse the pipeline wrote."""

    audit_ids: list[str]  # latest first
    targets: list[str]
    compared: list[str]  # the last two scored full audits of the latest target, oldest first
    hallucinated: pd.DataFrame  # claim, label, evidence_document of the latest audit, worst first
    failed: pd.DataFrame  # category, assertion of the latest audit's failures


def _expected(path: Path) -> Expected:
    with Warehouse(path).connect(read_only=True) as con:

        def column(sql: str, params: list[Any] | None = None) -> list[Any]:
            return [row[0] for row in con.execute(sql, params or []).fetchall()]

        audit_ids = column("SELECT audit_id FROM audits ORDER BY started_at DESC, audit_id DESC")
        targets = column("SELECT DISTINCT target FROM audits WHERE risk IS NOT NULL")
        target = column(
            "SELECT target FROM audits WHERE risk IS NOT NULL"
            " ORDER BY started_at DESC, audit_id DESC LIMIT 1"
        )[0]
        compared = column(
            "SELECT audit_id FROM audits WHERE target = ? AND risk IS NOT NULL"
            " AND scope = 'full' ORDER BY started_at DESC, audit_id DESC LIMIT 2",
            [target],
        )[::-1]
        hallucinated = con.execute(
            "SELECT claim, label, evidence_document FROM v_claim_verdicts"
            " WHERE audit_id = ? AND label IN ('contradicted', 'unsupported')"
            " ORDER BY label = 'unsupported', probability NULLS LAST, prompt_id",
            [compared[-1]],
        ).fetch_df()
        failed = con.execute(
            "SELECT DISTINCT category, assertion FROM v_failed_assertions WHERE audit_id = ?",
            [compared[-1]],
        ).fetch_df()
    return Expected(audit_ids, targets, compared, hallucinated, failed)


@pytest.fixture(scope="module")
def analysed(audited_warehouse: Path) -> Path:
    """The notebook runs against a warehouse made by three real audits (the whole Dagster graph
    over the recorded answers: one partial, two full), so it is tested on what the pipeline
    really writes."""
    return audited_warehouse


@pytest.fixture(scope="module")
def expected(analysed: Path) -> Expected:
    facts = _expected(analysed)
    assert len(facts.compared) == 2, "the fixture must hold two audits of the latest target"
    assert not facts.hallucinated.empty, "the fixture must hold hallucinated claims"
    return facts


@pytest.fixture(scope="module")
def executed(analysed: Path) -> nbformat.NotebookNode:
    return _execute(analysed)


@pytest.mark.slow
def test_no_cell_errors(executed: nbformat.NotebookNode) -> None:
    errors = [
        output
        for cell in executed.cells
        for output in cell.get("outputs", [])
        if output["output_type"] == "error"
    ]
    assert errors == []
    assert all(c.get("execution_count") for c in executed.cells if c.cell_type == "code")


def test_kernel_runs_this_environment(executed: nbformat.NotebookNode) -> None:
    """The ``python3`` kernel must be the project's interpreter, or the notebook would import
    another installation of ``audit_pipeline`` (or none)."""
    line = next(x for x in _text(_tagged(executed, "probe")).splitlines() if "KERNEL " in x)
    kernel = json.loads(line.split("KERNEL ", 1)[1])
    assert Path(kernel["prefix"]) == Path(sys.prefix)


def test_overview_lists_every_audit_latest_first(
    executed: nbformat.NotebookNode, analysed: Path, expected: Expected
) -> None:
    assert f"Reading {analysed}" in _text(_tagged(executed, "setup"))
    overview = _text(_tagged(executed, "overview"))
    positions = [overview.find(audit_id) for audit_id in expected.audit_ids]
    assert -1 not in positions
    assert positions == sorted(positions)


def test_weekly_roll_up_covers_every_target(
    executed: nbformat.NotebookNode, expected: Expected
) -> None:
    weekly = _text(_tagged(executed, "weekly"))
    assert all(target in weekly for target in expected.targets)


def test_every_plot_cell_renders_a_png(executed: nbformat.NotebookNode) -> None:
    plots = [c for c in executed.cells if "plot" in c.get("metadata", {}).get("tags", [])]
    assert len(plots) >= 2
    for cell in plots:
        assert "image/png" in _mime_types(cell), cell.source


def test_category_comparison_names_both_audits(
    executed: nbformat.NotebookNode, expected: Expected
) -> None:
    table = _text(_tagged(executed, "category-comparison"))
    previous, latest = expected.compared
    assert previous in table and latest in table
    assert table.index(previous) < table.index(latest)  # oldest first, as labelled
    assert "nothing to compare" not in table
    assert analysis.CHANGE in table


def test_worst_claims_show_stored_claims_worst_first(
    executed: nbformat.NotebookNode, expected: Expected
) -> None:
    table = _text(_tagged(executed, "worst-claims"))
    worst = expected.hallucinated.iloc[0]
    assert worst["claim"] in table
    if isinstance(worst["evidence_document"], str):
        assert worst["evidence_document"] in table
    first = expected.hallucinated.groupby("label")["claim"].first()
    if {"contradicted", "unsupported"} <= set(first.index):
        assert table.index(first["contradicted"]) < table.index(first["unsupported"])


@pytest.mark.slow
def test_worst_claims_are_only_the_latest_audits(warehouse_file: Path) -> None:
    """The builder's previous audit has a finding the latest one does not repeat."""
    table = _text(_tagged(_execute(warehouse_file), "worst-claims"))
    assert OLD_FINDING not in table
    assert SUPPORTED not in table


def test_failed_assertions_pivot(executed: nbformat.NotebookNode, expected: Expected) -> None:
    pivot = _text(_tagged(executed, "failed-assertions"))
    for row in expected.failed.itertuples():
        assert row.category in pivot and row.assertion in pivot
    if not expected.failed.empty:
        assert "total" in pivot


@pytest.mark.slow
def test_a_target_audited_once_is_shown_alone(warehouse_file: Path) -> None:
    notebook = _execute(warehouse_file, parameters='TARGET = "recorded"\nTOP_CLAIMS = 15')
    comparison = _tagged(notebook, "category-comparison")
    assert f"Only one scored audit of recorded ({RECORDED_ID})" in _text(comparison)
    assert "image/png" in _mime_types(_tagged(notebook, "category-plot"))
    assert "0 hallucinated claim(s)" in _text(_tagged(notebook, "worst-claims"))


def test_committed_notebook_has_no_outputs() -> None:
    """Outputs hold warehouse data and images; the repository keeps the notebook clean."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code
    assert all(c.outputs == [] and c.execution_count is None for c in code)


# -- which file to read --------------------------------------------------------------------------


@pytest.fixture
def configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An audit.yaml whose warehouse is ``tmp_path/wh/audit.duckdb``; no $AUDIT_WAREHOUSE."""
    config = tmp_path / "audit.yaml"
    config.write_text("storage:\n  duckdb_path: wh/audit.duckdb\n", encoding="utf-8")
    monkeypatch.setenv(analysis.ENV_CONFIG, str(config))
    monkeypatch.delenv(analysis.ENV_WAREHOUSE, raising=False)
    return tmp_path / "wh" / "audit.duckdb"


def test_live_file_before_any_snapshot(configured: Path) -> None:
    """A warehouse written before snapshots existed is still readable."""
    assert analysis.warehouse_path_for_reading() == configured


def test_snapshot_once_the_pipeline_has_written(configured: Path) -> None:
    store = Warehouse(configured)
    store.migrate()
    assert analysis.warehouse_path_for_reading() == store.snapshot_path
    assert store.snapshot_path != configured and store.snapshot_path.is_file()


def test_an_open_reader_does_not_block_an_audit(configured: Path) -> None:
    """The concurrency rule: an analyst's open connection never keeps an audit from writing.

    The reader keeps the snapshot it opened; the next connection sees the new audit.
    """
    store = Warehouse(configured, lock_timeout_s=1)
    write_all(store, _previous())
    with analysis.open_warehouse() as connection:
        write_all(store, _latest())
        seen = connection.execute("SELECT audit_id FROM audits").fetchall()
    assert seen == [(PREVIOUS_ID,)]
    after = analysis.read_sql("SELECT audit_id FROM audits ORDER BY audit_id")
    assert after["audit_id"].tolist() == [PREVIOUS_ID, LATEST_ID]


def test_environment_and_argument_override_the_configuration(
    configured: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(analysis.ENV_WAREHOUSE, str(tmp_path / "copy.duckdb"))
    assert analysis.warehouse_path_for_reading() == tmp_path / "copy.duckdb"
    assert analysis.warehouse_path_for_reading(tmp_path / "x.duckdb") == tmp_path / "x.duckdb"


def test_thresholds_come_from_the_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "audit.yaml"
    config.write_text("scoring:\n  deploy_max_risk: 0.05\n  warn_max_risk: 0.2\n")
    monkeypatch.setenv(analysis.ENV_CONFIG, str(config))
    assert analysis.decision_thresholds() == analysis.Thresholds(0.05, 0.2)


def test_reading_releases_the_file(warehouse_file: Path, tmp_path: Path) -> None:
    """After a read, a writer can open the same file: no connection was left behind."""
    copy = tmp_path / "audit.duckdb"
    copy.write_bytes(warehouse_file.read_bytes())
    assert len(analysis.read_sql("SELECT audit_id, status FROM audits", path=copy)) == 3
    Warehouse(copy, lock_timeout_s=1).execute("UPDATE audits SET status = 'finished'")
    with analysis.open_warehouse(copy) as connection:
        statuses = connection.execute("SELECT DISTINCT status FROM audits").fetchall()
    assert statuses == [("finished",)]


def test_missing_warehouse_says_run_an_audit(tmp_path: Path) -> None:
    with pytest.raises(WarehouseError, match="run an audit first"):
        analysis.read_sql("SELECT 1", path=tmp_path / "absent.duckdb")


# -- shaping -------------------------------------------------------------------------------------


def _scores(rows: list[tuple[str, str, float | None, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["audit_id", "category", "risk", "prompts_failed"])


def test_category_deltas_worst_regression_first() -> None:
    scores = _scores(
        [
            ("a", "encryption", 0.1, 0),
            ("a", "gdpr", 0.3, 2),
            ("b", "encryption", 0.5, 1),
            ("b", "gdpr", 0.2, 1),
            ("b", "sso", 0.4, 1),
        ]
    )
    table = analysis.category_comparison(scores, ["a", "b"])
    change = analysis.CHANGE
    assert list(table.index) == ["encryption", "gdpr", "sso"]
    assert table.loc["encryption", (change, "risk")] == pytest.approx(0.4)
    assert table.loc["gdpr", (change, "failed prompts")] == -1
    assert pd.isna(table.loc["sso", (change, "risk")])  # new category: no delta, not +0.4
    assert pd.isna(table.loc["sso", ("a", "risk")])
    assert table.loc["sso", ("b", "risk")] == pytest.approx(0.4)


def test_category_table_of_a_single_audit_has_no_deltas() -> None:
    table = analysis.category_comparison(_scores([("a", "gdpr", 0.3, 2)]), ["a"])
    assert list(table.columns) == [("a", "risk"), ("a", "failed prompts")]


def test_last_audits_skip_unscored_and_reject_unknown_targets() -> None:
    summary = pd.DataFrame(
        {
            "audit_id": ["1", "2", "3", "4"],
            "target": ["bot", "bot", "bot", "other"],
            "started_at": pd.to_datetime(["2026-11-01", "2026-11-08", "2026-11-15", "2026-11-15"]),
            "risk": [0.1, 0.2, None, 0.3],
        }
    )
    assert analysis.last_audits(summary, "bot") == ["1", "2"]
    with pytest.raises(ValueError, match="targets with audits: bot, other"):
        analysis.last_audits(summary, "bto")


def test_latest_target_needs_a_scored_audit() -> None:
    summary = pd.DataFrame(
        {
            "audit_id": ["1", "2"],
            "target": ["bot", "other"],
            "started_at": pd.to_datetime(["2026-11-01", "2026-11-08"]),
            "status": ["finished", "running"],
            "risk": [0.1, None],
        }
    )
    assert analysis.latest_target(summary) == "bot"  # "other" is still running
    with pytest.raises(ValueError, match=r"no scored audit .*statuses: running"):
        analysis.latest_target(summary.iloc[1:])
    with pytest.raises(ValueError, match="statuses: none"):
        analysis.latest_target(summary.iloc[0:0])


def test_worst_claims_order_and_excerpt() -> None:
    claims = pd.DataFrame(
        {
            "prompt_id": ["P1", "P2", "P3"],
            "claim": ["unsupported, sure", "contradicted", "unsupported, unsure"],
            "label": ["unsupported", "contradicted", "unsupported"],
            "probability": [0.05, 0.4, 0.3],
            "evidence_document": ["a.md", "b.md", None],
            "evidence_section": ["1. Intro", None, None],
            "evidence_text": ["word " * 100, "short\n text", None],
        }
    )
    table = analysis.worst_claims_table(claims, excerpt_chars=40)
    assert table["claim"].tolist() == ["contradicted", "unsupported, sure", "unsupported, unsure"]
    assert table["evidence"].tolist() == ["b.md", f"a.md {CRUMB} 1. Intro", ""]
    assert table["excerpt"].tolist()[0] == "short text"
    assert table["excerpt"].tolist()[1].endswith(" …")
    assert len(table["excerpt"].tolist()[1]) <= 42


def test_failed_assertion_pivot_counts_turns() -> None:
    failures = pd.DataFrame(
        {
            "category": ["gdpr", "gdpr", "encryption"],
            "assertion": ["must_not_appear", "must_not_appear", "required_signals"],
            "prompt_id": ["G1", "G2", "E1"],
        }
    )
    pivot = analysis.failed_assertion_pivot(failures)
    assert pivot.loc["gdpr", "must_not_appear"] == 2
    assert pivot.loc["total", "total"] == 3
    assert analysis.failed_assertion_pivot(failures.iloc[0:0]).empty


def test_notebook_reads_only_through_analysis_and_writes_nothing() -> None:
    """Every read goes through ``analysis`` (read-only, closed after each query), and the
    notebook saves no file: its results are its outputs."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    sources = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    for forbidden in ("duckdb.connect", "savefig", ".to_csv", ".to_parquet", "open("):
        assert forbidden not in sources


def test_the_default_target_is_the_configured_one_not_the_last_audited() -> None:
    summary = pd.DataFrame(
        {
            "audit_id": ["1", "2", "3"],
            "target": ["vault_bot", "recorded", "candidate"],
            "started_at": pd.to_datetime(["2026-11-01", "2026-11-08", "2026-11-15"]),
            "risk": [0.1, 0.2, None],  # the candidate's audit is still running
            "status": ["finished", "finished", "running"],
        }
    )
    assert analysis.default_target(summary, "vault_bot") == (
        "vault_bot",
        "the default target in audit.yaml",
    )
    # A default with no scored audit here (a warehouse from elsewhere): the latest, and why.
    target, why = analysis.default_target(summary, "candidate")
    assert target == "recorded" and "candidate has none" in why
    assert analysis.default_target(summary)[0] == "recorded"
