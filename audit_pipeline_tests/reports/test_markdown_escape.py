"""escape_markdown: model text becomes literal characters in any CommonMark/GFM renderer, and
the file still reads as typed: only what Markdown would read as markup is escaped."""

from __future__ import annotations

import pytest

from audit_pipeline.reports.markdown import markdown_table
from audit_pipeline.reports.markdown_report import escape_markdown

NASTY = (
    "![x](http://evil/x.png) [link](javascript:alert(1)) <b onmouseover=x>hi</b> &amp; "
    "*em* _em_ `code` ~~del~~ | pipe \\[ @someone www.evil.example $x$"
)


def test_markup_characters_are_escaped_with_a_backslash() -> None:
    escaped = escape_markdown(NASTY)

    assert escaped.startswith("!\\[x\\](http&#58;&#47;&#47;evil/x.png) \\[link\\]")
    for escaped_form in ("\\*em\\*", "\\_em\\_", "\\`code\\`", "\\~\\~del", "\\| pipe", "\\$x\\$"):
        assert escaped_form in escaped
    assert "\\<b onmouseover=x>hi\\</b>" in escaped
    assert "\\&amp;" in escaped  # an entity in the data stays visible as typed
    # Autolinks, which a backslash does not stop, become character references.
    assert "&#64;someone" in escaped and "&#119;&#119;&#119;&#46;evil" in escaped


def test_what_markdown_does_not_read_as_markup_stays_as_typed() -> None:
    plain = "Do not deploy: gate hallucinations 4 > 0. R&D, 66.7% < 85%; issue #12; a = b; 6. x"
    assert escape_markdown(plain) == plain
    assert escape_markdown("vault_bot must_not_appear") == "vault_bot must_not_appear"
    assert escape_markdown("_em_ __strong__") == "\\_em\\_ \\_\\_strong\\_\\_"


def test_line_starts_cannot_open_block_structure() -> None:
    text = "# Heading\n- item\n+ item\n> quote\n12. item\n        code\n---\n===\n4.3 Leavers"
    escaped = escape_markdown(text, line_start=True)

    assert escaped.split("\n") == [
        "\\# Heading",
        "\\- item",
        "\\+ item",
        "\\> quote",
        "12\\. item",
        "code",
        "\\---",
        "\\===",
        "4.3 Leavers",  # not a list marker: left readable
    ]


def test_inline_text_keeps_its_spacing_and_numbers() -> None:
    assert escape_markdown(" 6. Key Rotation") == " 6. Key Rotation"
    assert escape_markdown("- a\n- b") == "- a\n\\- b"  # the second line starts a line


def test_escaped_cells_keep_the_columns_of_a_table() -> None:
    table = markdown_table(
        [{"a": escape_markdown("x | y [z](q)"), "b": "ok"}], ["a", "b"], escaped=True
    )

    assert table.splitlines()[2] == "| x \\| y \\[z\\](q) | ok |"


@pytest.mark.parametrize("empty", [None, ""])
def test_empty_text_stays_empty(empty: str | None) -> None:
    assert escape_markdown(empty) == ""


def test_rendered_nasty_text_has_no_tags_links_or_formatting() -> None:
    markdown_it = pytest.importorskip("markdown_it")
    renderer = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table")
    rendered = renderer.render(escape_markdown(NASTY))

    for tag in ("<a ", "<img", "<b ", "<em>", "<code>", "<del>", "<strong>", "<table"):
        assert tag not in rendered
    assert "[link](javascript:alert(1))" in rendered
    assert "&lt;b onmouseover=x&gt;hi&lt;/b&gt;" in rendered  # shown, not interpreted

    cell = markdown_table([{"a": escape_markdown("x | *y*"), "b": "ok"}], ["a", "b"], escaped=True)
    table = renderer.render(cell)
    assert table.count("<td>") == 2 and "<em>" not in table and "x | *y*" in table
