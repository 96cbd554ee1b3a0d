"""The report's Jinja environment: every placeholder escaped, a missing value an error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from jinja2 import UndefinedError
from markupsafe import Markup

from audit_pipeline.reports.templating import ENV
from audit_pipeline.reports.write import write_report
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.reports.builders import AuditBuilder, without_mark_script, write_all

HOSTILE = "\"'><script>alert(1)</script>"
ESCAPED = "&quot;&#x27;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"


def test_placeholders_escape_text_and_keep_markup_and_drop_none() -> None:
    template = ENV.from_string('<p title="{{ text }}">{{ text }}{{ markup }}{{ nothing }}</p>')

    page = template.render(text=HOSTILE, markup=Markup("<b>ok</b>"), nothing=None)

    assert page == f'<p title="{ESCAPED}">{ESCAPED}<b>ok</b></p>'


def test_a_missing_value_fails_the_render_instead_of_leaving_a_hole() -> None:
    with pytest.raises(UndefinedError):
        ENV.from_string("{{ missing }}").render()


def test_suite_text_in_ids_categories_and_attributes_is_escaped(tmp_path: Path) -> None:
    audit = AuditBuilder("20261123T080000Z-hostile-00000001", target=HOSTILE, suite=HOSTILE)
    audit.turn(f"OK-{HOSTILE}", HOSTILE, f"Question {HOSTILE}", "Yes.")
    audit.assertion(f"OK-{HOSTILE}", "required_signals", True)
    audit.turn(f"BAD-{HOSTILE}", HOSTILE, f"Question {HOSTILE}", "No.")
    audit.assertion(f"BAD-{HOSTILE}", HOSTILE, False, HOSTILE)
    store = Warehouse(tmp_path / "w.duckdb")
    write_all(store, audit)

    page = write_report(store, audit.audit_id, tmp_path / "out").html.read_text(encoding="utf-8")

    assert "<script" not in without_mark_script(page).lower()
    assert f'<td class="prompt" title="Question {ESCAPED}">' in page  # attribute position
    assert f"<h1>{ESCAPED} <span" in page and f"<title>Audit report · {ESCAPED}" in page
    assert f'<td class="name">{ESCAPED}</td><td>{ESCAPED}</td>' in page  # failed check
    # Anchors are slugs of the ids, never the ids themselves.
    anchors = re.findall(r'(?:href="#|id=")([^"]*)"', page)
    assert "p-BAD--script-alert-1-script" in anchors and "p-OK--script-alert-1-script" in anchors
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", anchor) for anchor in anchors)
