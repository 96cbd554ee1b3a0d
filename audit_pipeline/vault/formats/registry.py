"""Which converter reads which file, by file name suffix.

Files whose suffix is not here (``.md``, ``.txt`` and whatever else ``vault.include`` lets in)
are read as UTF-8 text, as they always were.
"""

from __future__ import annotations

from collections.abc import Callable

from audit_pipeline.vault.formats.converted import ConvertedText
from audit_pipeline.vault.formats.docx import convert_docx
from audit_pipeline.vault.formats.html import convert_html
from audit_pipeline.vault.formats.pdf import convert_pdf

Converter = Callable[[bytes], ConvertedText]

_CONVERTERS: dict[str, Converter] = {
    ".pdf": convert_pdf,
    ".html": convert_html,
    ".htm": convert_html,
    ".xhtml": convert_html,
    ".docx": convert_docx,
}
CONVERTED_SUFFIXES = frozenset(_CONVERTERS)


def converter_for(name: str) -> Converter | None:
    """The converter for a file name (case-insensitive suffix), None for plain text."""
    dot = name.rfind(".")
    return _CONVERTERS.get(name[dot:].lower()) if dot > 0 else None


def convert(name: str, raw: bytes) -> ConvertedText:
    """Convert ``raw``, the bytes of the file ``name``; ``ValueError`` for a plain-text name.

    Raises ``ConversionError`` when the file cannot be converted.
    """
    converter = converter_for(name)
    if converter is None:
        raise ValueError(f"{name}: no converter for this file type (read it as text)")
    return converter(raw)
