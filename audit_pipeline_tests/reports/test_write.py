"""End to end: rows in a real DuckDB warehouse -> report.html and report.md on disk."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

import pytest

from audit_pipeline.reports import write as write_module
from audit_pipeline.reports.data import ReportDataError
from audit_pipeline.reports.write import report_dir_name, write_atomic, write_report
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.reports.builders import AuditBuilder, without_mark_script, write_all
from audit_pipeline_tests.reports.sample_audits import (
    CONTRADICTED,
    CURRENT_ID,
    IMG,
    PREVIOUS_ID,
    SCRIPT,
)


def test_writes_both_reports_into_a_folder_per_audit(warehouse: Warehouse, tmp_path: Path) -> None:
    paths = write_report(warehouse, CURRENT_ID, tmp_path / "reports")

    assert paths.html == tmp_path / "reports" / CURRENT_ID / "report.html"
    assert paths.markdown == tmp_path / "reports" / CURRENT_ID / "report.md"
    assert paths.html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert paths.markdown.read_text(encoding="utf-8").startswith("# Audit report: vault")
    assert sorted(p.name for p in paths.html.parent.iterdir()) == ["report.html", "report.md"]


def test_model_text_appears_in_the_html_only_escaped(warehouse: Warehouse, tmp_path: Path) -> None:
    page = write_report(warehouse, CURRENT_ID, tmp_path).html.read_text(encoding="utf-8")

    assert "<script" not in without_mark_script(page).lower()
    assert "<img" not in page.lower()
    assert "onerror=alert(2)>" not in page
    # The exact escaped forms: response, justification, evidence text and failed-check detail.
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3
    assert "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;" in page
    assert escape(IMG, quote=True) in page
    # No attribute values or links built from data: every href is an in-page anchor.
    assert set(re.findall(r'href="([^"#][^"]*)"', page)) == set()
    assert "Content-Security-Policy" in page


def test_model_text_is_neutralised_in_the_markdown(warehouse: Warehouse, tmp_path: Path) -> None:
    text = write_report(warehouse, CURRENT_ID, tmp_path).markdown.read_text(encoding="utf-8")

    # Every markup character model text brings is escaped with a backslash, so the file
    # still reads as typed; bare URLs (autolinks) become character references.
    assert SCRIPT not in text and re.search(r"(?<!\\)<(script|img)", text) is None
    assert "\\<script>alert(1)\\</script>" in text
    assert re.search(r"(?<!\\)\[click here(?<!\\)\]", text) is None
    assert "\\[click here\\](javascript:alert(3))" in text
    assert "https://evil" not in text
    assert "`code`" not in text and "~~gone~~" not in text
    autolinks = ("&#58;&#47;&#47;", "&#64;")  # "://" and "@": what a backslash cannot stop
    assert "&#" not in text.replace(autolinks[0], "").replace(autolinks[1], "")


def test_markdown_renders_no_markup_from_model_text(warehouse: Warehouse, tmp_path: Path) -> None:
    """Render with raw HTML enabled (the most permissive setting): data still yields no tags."""
    markdown_it = pytest.importorskip("markdown_it")
    text = write_report(warehouse, CURRENT_ID, tmp_path).markdown.read_text(encoding="utf-8")

    rendered = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(text)

    assert "<script" not in rendered and "<img" not in rendered
    assert "<code>" not in rendered and "<del>" not in rendered
    assert not re.findall(r'<a href="(?!#)', rendered)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rendered
    assert "[click here](javascript:alert(3))" in rendered


def test_contradicted_claim_span_is_highlighted(warehouse: Warehouse, tmp_path: Path) -> None:
    paths = write_report(warehouse, CURRENT_ID, tmp_path)
    page = paths.html.read_text(encoding="utf-8")
    text = paths.markdown.read_text(encoding="utf-8")

    assert (
        f'<mark class="contradicted" title="C1 contradicted">{CONTRADICTED}</mark>'
        '<sup class="ref"><a href="#p-ENC-002-c1">C1</a></sup>'
    ) in page
    assert 'id="p-ENC-002-c1"' in page
    assert "The standard rotates keys every 12 months, not every 90 days." in page
    assert 'encryption-standard.md</span><span class="sep">\u203a</span>6. Key Rotation' in page
    assert f"**{CONTRADICTED}** _(C1 contradicted)_" in text
    # The supported claim is not highlighted.
    highlights = re.findall(r'<mark class="(\w+)" title=', page)
    assert highlights == ["contradicted", "unsupported"]  # ENC-002's and GDPR-003's


def test_category_table_and_trend_cover_both_audits(warehouse: Warehouse, tmp_path: Path) -> None:
    paths = write_report(warehouse, CURRENT_ID, tmp_path)
    page = paths.html.read_text(encoding="utf-8")
    text = paths.markdown.read_text(encoding="utf-8")

    categories = page.split('id="categories"', 1)[1].split("</section>", 1)[0]
    encryption_row = categories.split('<td class="cat">encryption</td>', 1)[1].split("</tr>")[0]
    assert '<span class="pill block">0.500</span>' in encryption_row  # this audit
    assert "0.050" in encryption_row  # the previous audit
    assert '<span class="delta-up">\u25b2 0.450</span>' in encryption_row
    assert PREVIOUS_ID in categories

    chart, table = page.split("<h3>Trend</h3>", 1)[1].split("trend-table", 1)
    assert f"<title>{PREVIOUS_ID}: risk 0.120 (warn)</title>" in chart  # oldest point first
    assert f"<title>{CURRENT_ID}: risk 0.310 (block)</title>" in chart
    assert "this audit and the 1 before it" in chart.lower()
    assert table.index(CURRENT_ID) < table.index(PREVIOUS_ID)  # newest first in the table
    assert "| encryption | 1 | 0 | 1 | 0% | 2 | 0 | 1 | 0.500 | 0.050 | +0.450 |" in text
    assert f"| {PREVIOUS_ID} |" in text.replace("&#95;", "_")


def test_summary_from_the_engine_wins_over_derived_numbers(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    summary = {
        "total": 50,
        "passed": 46,
        "failed": 4,
        "pass_rate": 0.92,
        "assertions_passed": 180,
        "assertions_failed": 7,
        "hallucinations": 5,
        "citation_errors": 2,
        "fallback_errors": 1,
        "by_category": {"encryption": {"passed": 9, "failed": 1, "risk": 0.2}},
    }
    paths = write_report(warehouse, CURRENT_ID, tmp_path, summary=summary)
    page = paths.html.read_text(encoding="utf-8")

    assert "92.0%" in page and "46 of 50 prompts passed" in page
    assert "180<span" in page
    assert '<td class="cat">encryption</td><td class="num">10</td>' in page
    assert "| Pass rate | 92.0% |" in paths.markdown.read_text(encoding="utf-8")


def test_derived_summary_counts_prompts_checks_and_hallucinations(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    text = write_report(warehouse, CURRENT_ID, tmp_path).markdown.read_text(encoding="utf-8")

    assert "| Prompts | 3 (1 passed, 2 failed) |" in text
    assert "| Assertions | 2 passed, 3 failed |" in text
    assert (
        "| Hallucinations (answers with an unsupported, contradicted or stale claim, or a "
        "forbidden string) | 2 |"
    ) in text
    assert "| Citation errors | 0 |" in text


def test_an_audit_without_failures_renders(tmp_path: Path) -> None:
    store = Warehouse(tmp_path / "w.duckdb")
    audit = AuditBuilder("20261123T080000Z-clean-00000001", decision="deploy", risk=0.02)
    audit.turn("SOC2-001", "soc2", "Do you have a SOC 2 Type II report?", "Yes, Type II.")
    audit.claim("SOC2-001", "Yes, Type II.", "supported")
    audit.assertion("SOC2-001", "required_signals", True)
    write_all(store, audit)

    paths = write_report(store, audit.audit_id, tmp_path / "out")
    page = paths.html.read_text(encoding="utf-8")

    assert '<span class="badge deploy">deploy</span>' in page
    assert "No failures" in page and "First audit of this target" in page
    assert '<td class="mono" style="white-space:nowrap">SOC2-001</td>' in page
    assert "## Failures (0)" in paths.markdown.read_text(encoding="utf-8")


def test_an_audit_without_any_stage_output_renders(tmp_path: Path) -> None:
    store = Warehouse(tmp_path / "w.duckdb")
    write_all(store, AuditBuilder("20261123T080000Z-empty-00000001"))

    paths = write_report(store, "20261123T080000Z-empty-00000001", tmp_path / "out")

    assert "No prompt passed." in paths.html.read_text(encoding="utf-8")


def test_overlapping_and_out_of_range_spans_do_not_break_the_report(tmp_path: Path) -> None:
    answer = "Keys rotate quarterly. Backups are kept forever. Logs go to <b>Datadog</b>."
    audit = AuditBuilder("20261123T080000Z-spans-00000001")
    audit.turn("ENC-002", "encryption", "Rotation?", answer)
    for span, label in [
        ((0, 22), "contradicted"),
        ((12, 48), "unsupported"),  # overlaps both neighbours
        ((23, 30), "contradicted"),  # nested
        ((-40, 4), "unsupported"),  # starts before the text
        ((60, 10_000), "unsupported"),  # runs past the end
        ((50, 20), "contradicted"),  # inverted, text not found either
        ((500, 600), "unsupported"),  # entirely outside
    ]:
        audit.claim("ENC-002", f"claim {span}", label, span=span)
    audit.turn("ENC-003", "encryption", "TLS?", None, error="HTTP 503 from target")
    store = Warehouse(tmp_path / "w.duckdb")
    write_all(store, audit)

    paths = write_report(store, audit.audit_id, tmp_path / "out")
    page = paths.html.read_text(encoding="utf-8")

    response = page.split('<p class="response">', 1)[1].split("</p>", 1)[0]
    visible = re.sub(r"<sup.*?</sup>", "", response)
    assert re.sub(r"<[^>]+>", "", visible) == escape(answer, quote=True)
    assert "&lt;b&gt;Datadog&lt;/b&gt;" in response
    assert "No answer: HTTP 503 from target" in page
    markdown = paths.markdown.read_text(encoding="utf-8")
    assert "**Keys rotate quarterly. Backups are kept forever.**" in markdown


def test_trend_holds_at_most_twelve_earlier_audits_of_the_same_target(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from audit_pipeline.reports.data import load_report_data

    base = datetime(2026, 1, 1, tzinfo=UTC)
    audits = [
        AuditBuilder(
            f"2026{i:04d}-vault_bot-{i:08d}", started_at=base + timedelta(days=i), risk=0.1
        )
        for i in range(15)
    ]
    other = AuditBuilder("20260301-other-00000001", target="other_bot", started_at=base)
    later = AuditBuilder("20261231-vault_bot-99999999", started_at=base + timedelta(days=300))
    store = Warehouse(tmp_path / "w.duckdb")
    write_all(store, *audits, other, later)

    data = load_report_data(store, audits[14].audit_id)

    assert [p.audit_id for p in data.trend] == [a.audit_id for a in audits[2:15]]
    assert data.trend[-1].is_current and not any(p.is_current for p in data.trend[:-1])
    assert data.previous_audit_id == audits[13].audit_id


def test_an_unknown_audit_is_refused(warehouse: Warehouse, tmp_path: Path) -> None:
    with pytest.raises(ReportDataError, match="not in the warehouse"):
        write_report(warehouse, "20990101T000000Z-nope-00000000", tmp_path)
    assert sorted(tmp_path.iterdir()) == sorted([warehouse.path, warehouse.snapshot_path])


def test_audit_ids_become_one_safe_directory_name() -> None:
    assert report_dir_name(CURRENT_ID) == CURRENT_ID
    assert report_dir_name("../../etc/x") == "_.._etc_x"
    assert report_dir_name("2026-openai/gpt-4o-ab") == "2026-openai_gpt-4o-ab"
    with pytest.raises(ValueError, match="directory name"):
        report_dir_name("..")


def test_atomic_write_keeps_the_old_report_when_the_move_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.html"
    write_atomic(target, "old")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(write_module.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, "new")

    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_a_conversation_failing_on_a_later_turn_shows_every_turn(tmp_path: Path) -> None:
    audit = AuditBuilder("20261123T080000Z-convo-00000001")
    first = "Keys rotate every 12 months [source: encryption-standard.md#6. Key Rotation]."
    second = "Yes, keys rotate quarterly [source: encryption-standard.md#5. Key Management]."
    audit.turn("ENC-MT-001", "encryption", "How do you rotate keys?", first)
    audit.assertion("ENC-MT-001", "citation_source", True, "encryption-standard.md cited")
    audit.turn(
        "ENC-MT-001",
        "encryption",
        "You said quarterly, right?",
        second,
        turn=1,
        citations=[
            {
                "label": "encryption-standard.md#5. Key Management",
                "file": "encryption-standard.md",
                "section": "5. Key Management",
            }
        ],
    )
    audit.assertion("ENC-MT-001", "no_agreement", False, "agreed with a false premise", turn=1)
    audit.assertion(
        "ENC-MT-001",
        "citation_contains",
        False,
        "encryption-standard.md#5. Key Management lacks 'Key Rotation'",
        turn=1,
    )
    store = Warehouse(tmp_path / "w.duckdb")
    write_all(store, audit)

    paths = write_report(store, audit.audit_id, tmp_path / "out")
    page = paths.html.read_text(encoding="utf-8")

    assert '<a class="id" href="#p-ENC-MT-001">ENC-MT-001</a>' in page
    assert "Turn 1 of 2 · passed" in page and "Turn 2 of 2<" in page
    assert (
        '<span class="cite bad"><span class="st">failed</span>'
        "encryption-standard.md \u203a 5. Key Management</span>"
    ) in page
    assert "agreed with a false premise" in page
    markdown = paths.markdown.read_text(encoding="utf-8")
    assert "#### Turn 1 of 2 (passed)" in markdown and "#### Turn 2 of 2" in markdown
    assert "| FAILED |" in markdown
