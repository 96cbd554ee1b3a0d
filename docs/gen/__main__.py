"""``python -m docs.gen [--check]``: write the reference pages, or fail when one differs.

``--check`` is what CI runs (``make docs-check``) and what a test runs: a page that does not
match the code it documents means the code changed and the page was not regenerated.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from . import cli_reference, config_keys, http_api, mcp_tools, warehouse_tables

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "docs" / "reference"


def pages(config_path: Path = REPO / "audit.yaml") -> dict[str, Callable[[], str]]:
    """Page file name -> the function that writes it."""
    return {
        "configuration.md": config_keys.render,
        "cli.md": cli_reference.render,
        "warehouse.md": warehouse_tables.render,
        "http-api.md": lambda: http_api.render(config_path),
        "mcp-tools.md": lambda: mcp_tools.render(config_path),
    }


def render_all() -> dict[str, str]:
    """Every page as the code says it now."""
    return {name: render() for name, render in pages().items()}


def stale_pages(folder: Path = REFERENCE, rendered: dict[str, str] | None = None) -> list[str]:
    """The pages whose file differs from ``rendered`` (by default what the code says now),
    missing ones included."""
    rendered = render_all() if rendered is None else rendered
    stale = []
    for name, text in rendered.items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docs.gen", description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail when a page is out of date")
    args = parser.parse_args(argv)
    unknown = config_keys.unknown_keys()
    if unknown:
        print(f"docs/gen/key_meanings.py names keys the models lack: {unknown}", file=sys.stderr)
        return 1
    if args.check:
        stale = stale_pages()
        for name in stale:
            print(f"docs/reference/{name} is out of date: run python -m docs.gen", file=sys.stderr)
        return 1 if stale else 0
    REFERENCE.mkdir(parents=True, exist_ok=True)
    for name, render in pages().items():
        (REFERENCE / name).write_text(render(), encoding="utf-8")
        print(f"wrote docs/reference/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
