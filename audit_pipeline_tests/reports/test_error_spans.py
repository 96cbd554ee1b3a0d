"""Error spans: the words of a flagged claim the evidence does not back, marked inside its
highlight in both reports, escaped like all model text, and harmless when they are nonsense."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

import pytest

from audit_pipeline.reports.write import ReportPaths, write_report
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.reports.builders import AuditBuilder, without_mark_script, write_all

AUDIT_ID = "20261123T080000Z-vault_bot-cccc3333"
CLAIM = "The warranty covers 36 months."
NUMBER = (20, 29)  # CLAIM[20:29] == "36 months"; the span counts from the claim, not the answer


def _report(tmp_path: Path, answer: str, claim: str, spans: list[tuple[int, int]]) -> ReportPaths:
    audit = AuditBuilder(AUDIT_ID)
    audit.turn("WAR-001", "warranty", "How long is the warranty?", answer)
    audit.claim("WAR-001", claim, "contradicted", error_spans=spans)
    store = Warehouse(tmp_path / "w.duckdb")
    write_all(store, audit)
    return write_report(store, AUDIT_ID, tmp_path / "out")


def _response_html(page: str) -> str:
    return page.split('<p class="response">', 1)[1].split("</p>", 1)[0]


def test_error_span_is_marked_inside_the_claim_highlight(tmp_path: Path) -> None:
    assert CLAIM[slice(*NUMBER)] == "36 months"
    paths = _report(tmp_path, f"Thanks for asking. {CLAIM}", CLAIM, [NUMBER])
    page = paths.html.read_text(encoding="utf-8")
    text = paths.markdown.read_text(encoding="utf-8")

    assert (
        'Thanks for asking. <mark class="contradicted" title="C1 contradicted">'
        'The warranty covers <mark class="error-span">36 months</mark>.</mark>'
        '<sup class="ref">'
    ) in page
    assert '“The warranty covers <mark class="error-span">36 months</mark>.”' in page
    assert "mark.error-span {" in page  # styled, not just tagged
    assert "> Thanks for asking. **The warranty covers ⟦36 months⟧.** _(C1 contradicted)_" in text
    assert "  - Claim: _The warranty covers ⟦36 months⟧._" in text


def test_an_error_span_over_hostile_text_stays_escaped(tmp_path: Path) -> None:
    claim = "Run <script>alert(1)</script> to extend it."
    start = claim.index("<script>")
    paths = _report(tmp_path, f"Sure. {claim}", claim, [(start, start + len("<script>"))])
    page = paths.html.read_text(encoding="utf-8")
    text = paths.markdown.read_text(encoding="utf-8")

    assert "<script" not in without_mark_script(page).lower()
    assert (
        'Run <mark class="error-span">&lt;script&gt;</mark>alert(1)&lt;/script&gt; to extend it.'
    ) in _response_html(page)
    assert re.search(r"(?<!\\)<script", text) is None  # every one escaped
    assert "**Run ⟦\\<script>⟧alert(1)\\</script> to extend it.**" in text
    markdown_it = pytest.importorskip("markdown_it")
    rendered = markdown_it.MarkdownIt("commonmark", {"html": True}).render(text)
    assert "<script" not in rendered
    assert "<strong>Run ⟦&lt;script&gt;⟧alert(1)&lt;/script&gt; to extend it.</strong>" in rendered


def test_nonsense_error_spans_are_clipped_or_ignored(tmp_path: Path) -> None:
    answer = f"Logs go to <b>Datadog</b>. {CLAIM}"
    spans = [(-5, 3), (20, 25), (23, 29), (26, 500), (29, 20), (900, 950), (10, 10)]
    paths = _report(tmp_path, answer, CLAIM, spans)
    page = paths.html.read_text(encoding="utf-8")

    response = _response_html(page)
    visible = re.sub(r"<sup.*?</sup>", "", response)
    assert re.sub(r"<[^>]+>", "", visible) == escape(answer, quote=True)  # no text lost
    assert re.findall(r'<mark class="error-span">(.*?)</mark>', response) == [
        "The",  # clipped at the claim's start
        "36 months.",  # overlapping spans joined, the last one clipped at the claim's end
    ]
    assert "**⟦The⟧ warranty covers ⟦36 months.⟧**" in paths.markdown.read_text(encoding="utf-8")
