"""Word (DOCX) document to Markdown-like text (python-docx).

Word marks a heading by its paragraph style, so a paragraph styled "Heading N" (or a style
based on one) becomes a ``#`` line of that level, "Title" the top heading; list paragraphs
become ``-`` items and tables Markdown rows, in body order. Page headers and footers are not
part of the body and are left out. A password-protected DOCX is not a ZIP package at all but an
encrypted OLE container, and is reported as such rather than as a damaged file.

The file size limit bounds the package, not what it unpacks to: an 820 KB DOCX can hold 800 MB
of XML. Before python-docx opens it, the entries' declared sizes are summed and then every
entry is inflated in pieces and counted (a declared size can lie), so a package that unpacks
to more than ``MAX_UNPACKED_BYTES`` is refused without ever being held in memory.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from audit_pipeline.vault.formats.converted import ConversionError, ConvertedText

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # encrypted DOCX, or a legacy .doc
_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
_MAX_LEVEL = 6
MAX_UNPACKED_BYTES = 40_000_000
_PIECE = 1 << 20


def _check_unpacked_size(raw: bytes) -> None:
    """``ConversionError`` for a package that unpacks to more than ``MAX_UNPACKED_BYTES``."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as package:
            entries = package.infolist()
            declared = sum(entry.file_size for entry in entries)
            if declared > MAX_UNPACKED_BYTES:
                raise ConversionError(
                    f"DOCX package that unpacks to {declared} bytes (more than "
                    f"{MAX_UNPACKED_BYTES}): a compression bomb?"
                )
            unpacked = 0
            for entry in entries:
                with package.open(entry) as stream:
                    while piece := stream.read(_PIECE):
                        unpacked += len(piece)
                        if unpacked > MAX_UNPACKED_BYTES:
                            raise ConversionError(
                                f"DOCX package that unpacks to more than {MAX_UNPACKED_BYTES} "
                                f"bytes, though its entries declare {declared}: a compression "
                                "bomb?"
                            )
    except ConversionError:
        raise
    except Exception as error:  # zipfile, zlib: a package that is not a sound ZIP
        raise ConversionError(f"damaged DOCX ({type(error).__name__}: {error})") from error


def _style_level(style: Any) -> int | None:
    """Heading level of a paragraph style, following its base styles; 0 for Title."""
    seen = 0
    while style is not None and seen < 10:
        name = (style.name or "").strip()
        if name.casefold() == "title":
            return 0
        match = _HEADING_STYLE.match(name)
        if match:
            return int(match.group(1))
        style, seen = style.base_style, seen + 1
    return None


def _cell_text(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _table_lines(table: Any) -> list[str]:
    lines: list[str] = []
    for number, row in enumerate(table.rows):
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            if cell._tc is previous:  # a merged cell is returned once per grid column
                continue
            previous = cell._tc
            cells.append(_cell_text(cell.text))
        lines.append("| " + " | ".join(cells) + " |")
        if number == 0:
            lines.append("|" + "---|" * len(cells))
    return lines


def _blocks(document: Any) -> list[str]:
    from docx.table import Table

    items = list(document.iter_inner_content())
    has_title = any(not isinstance(item, Table) and _style_level(item.style) == 0 for item in items)
    blocks: list[str] = []
    for item in items:
        if isinstance(item, Table):
            blocks.append("\n".join(_table_lines(item)))
            continue
        text = item.text.strip()
        if not text:
            continue
        level = _style_level(item.style)
        style_name = (item.style.name or "") if item.style is not None else ""
        if level is not None:
            depth = min(level + 1 if has_title else max(level, 1), _MAX_LEVEL)
            blocks.append(f"{'#' * depth} {' '.join(text.split())}")
        elif style_name.casefold().startswith("list"):
            blocks.append(f"- {text}")
        else:
            blocks.append(text)
    return blocks


def convert_docx(raw: bytes) -> ConvertedText:
    """The body of a DOCX document as Markdown-like text."""
    if raw.startswith(_OLE_MAGIC):
        raise ConversionError(
            "not a DOCX package: a password-protected (encrypted) Word file or a legacy .doc"
        )
    import docx

    _check_unpacked_size(raw)
    try:
        document = docx.Document(io.BytesIO(raw))
        blocks = _blocks(document)
        title = (document.core_properties.title or "").strip() or None
    except Exception as error:  # zipfile, lxml and python-docx errors on a damaged package
        raise ConversionError(f"damaged DOCX ({type(error).__name__}: {error})") from error
    # Consecutive list items stay together; every other block is its own paragraph.
    text = ""
    for block in blocks:
        joiner = (
            "\n"
            if text and block.startswith("- ") and text.rsplit("\n", 1)[-1].startswith("- ")
            else "\n\n"
        )
        text = f"{text}{joiner}{block}" if text else block
    if not any(not block.startswith("#") for block in blocks):  # headings alone are no text
        raise ConversionError("DOCX document without text")
    return ConvertedText(text=text, source_format="docx", title=title)
