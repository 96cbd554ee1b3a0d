"""escape_markdown: model text becomes literal characters in any CommonMark/GFM renderer."""

from __future__ import annotations

import pytest

from audit_pipeline.reports.markdown import markdown_table
from audit_pipeline.reports.markdown_report import escape_markdown

NASTY = (
    "![x](http://evil/x.png) [link](javascript:alert(1)) <b onmouseover=x>hi</b> &amp; "
    "*em* _em_ `code` ~~del~~ ==hl== | pipe \\[ @someone #12 www.evil.example $x$"
)


def test_metacharacters_become_character_references() -> None:
    escaped = escape_markdown(NASTY)

    for raw in ("[", "]", "<", ">", "*", "_", "`", "~", "=", "|", "@", "#", "$", "://", "www."):
        assert raw not in escaped.replace("&#", "")  # only inside our own references
    assert escaped.startswith("!&#91;x&#93;(http&#58;&#47;&#47;evil/x.png)")
    assert "&#38;amp;" in escaped  # an entity in the data stays visible as typed


def test_underscores_inside_words_stay_readable() -> None:
    assert escape_markdown("vault_bot must_not_appear") == "vault_bot must_not_appear"
    assert escape_markdown("_em_ __strong__") == "&#95;em&#95; &#95;&#95;strong&#95;&#95;"


def test_line_starts_cannot_open_block_structure() -> None:
    text = "# Heading\n- item\n+ item\n> quote\n12. item\n        code\n---\n4.3 Leavers"
    escaped = escape_markdown(text, line_start=True)

    assert escaped.split("\n") == [
        "&#35; Heading",
        "&#45; item",
        "&#43; item",
        "&#62; quote",
        "&#49;&#50;&#46; item",
        "code",
        "&#45;--",
        "4.3 Leavers",  # not a list marker: left readable
    ]


def test_inline_text_keeps_its_spacing_and_numbers() -> None:
    assert escape_markdown(" 6. Key Rotation") == " 6. Key Rotation"
    assert escape_markdown("- a\n- b") == "- a\n&#45; b"  # the second line starts a line


def test_escaped_cells_survive_markdown_table_and_keep_the_columns() -> None:
    table = markdown_table([{"a": escape_markdown("x | y [z](q)"), "b": "ok"}], ["a", "b"])

    assert table.splitlines()[2] == "| x &#124; y &#91;z&#93;(q) | ok |"


@pytest.mark.parametrize("empty", [None, ""])
def test_empty_text_stays_empty(empty: str | None) -> None:
    assert escape_markdown(empty) == ""


def test_rendered_nasty_text_has_no_tags_links_or_formatting() -> None:
    markdown_it = pytest.importorskip("markdown_it")
    rendered = markdown_it.MarkdownIt("commonmark", {"html": True}).render(escape_markdown(NASTY))

    for tag in ("<a ", "<img", "<b ", "<em>", "<code>", "<del>", "<strong>"):
        assert tag not in rendered
    assert "[link](javascript:alert(1))" in rendered
