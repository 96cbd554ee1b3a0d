"""The reference pages of the documentation are what the code says now: regenerating them
changes nothing (``python -m docs.gen --check`` in CI says the same)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docs.gen.__main__ import REFERENCE, render_all, stale_pages
from docs.gen.config_keys import all_keys, unknown_keys


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return render_all()


def test_regenerating_the_reference_pages_changes_nothing(rendered: dict[str, str]) -> None:
    assert stale_pages(REFERENCE, rendered) == [], "run: python -m docs.gen"


def test_the_configuration_page_lists_every_key_of_the_models() -> None:
    page = (REFERENCE / "configuration.md").read_text(encoding="utf-8")
    missing = [key for key in sorted(all_keys()) if f"`{key}`" not in page]
    assert missing == []
    assert "`detection.max_claims_per_answer`" in page and "`gates.pass_rate_error`" in page


def test_hand_written_meanings_name_only_real_keys() -> None:
    assert unknown_keys() == []


def test_a_changed_page_is_found_stale(tmp_path: Path, rendered: dict[str, str]) -> None:
    for name, text in rendered.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert stale_pages(tmp_path, rendered) == []
    cli = tmp_path / "cli.md"
    cli.write_text(cli.read_text(encoding="utf-8").replace("--config", "--configuration"))
    assert stale_pages(tmp_path, rendered) == ["cli.md"]


def test_every_table_row_of_a_generated_page_has_its_headers_cells(
    rendered: dict[str, str],
) -> None:
    """A ``|`` from the code (a union type, a regex) must not split a cell."""
    for name, text in rendered.items():
        header_cells = None
        for line in text.splitlines():
            if not line.startswith("|"):
                header_cells = None
                continue
            cells = len(re.findall(r"(?<!\\)\|", line.replace("\\\\", "")))
            header_cells = header_cells or cells
            assert cells == header_cells, f"{name}: {line}"
