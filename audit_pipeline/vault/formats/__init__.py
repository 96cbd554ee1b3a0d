"""Converters that turn PDF, HTML and DOCX vault files into Markdown-like text.

The rest of the pipeline (heading-aware chunking, the index, citations) works on text with
``#`` headings, so every format is converted to that once, when the vault is read, and the
converted text is what gets chunked, indexed and kept in DuckDB: every character offset of a
chunk or an evidence passage points into it. A file that cannot be converted (damaged,
encrypted, image-only) raises ``ConversionError`` and is skipped with its reason.
"""

from __future__ import annotations

from audit_pipeline.vault.formats.converted import ConversionError, ConvertedText
from audit_pipeline.vault.formats.registry import CONVERTED_SUFFIXES, convert, converter_for

__all__ = [
    "CONVERTED_SUFFIXES",
    "ConversionError",
    "ConvertedText",
    "convert",
    "converter_for",
]
