"""HTML page to Markdown-like text: the main content only (trafilatura).

A page saved from a help centre or a status site carries navigation, cookie banners, scripts,
related-article boxes and a footer around the text that matters. Indexed as is, every chunk
would share that boilerplate and keyword search would find "Pricing" and "Careers" in every
policy. trafilatura finds the main content (and drops ``<script>``, ``<style>``, ``<nav>``,
``<header>``, ``<footer>`` and link lists) and writes its headings as ``#`` lines, so the
chunker sees sections.
"""

from __future__ import annotations

from audit_pipeline.vault.formats.converted import ConversionError, ConvertedText


def convert_html(raw: bytes) -> ConvertedText:
    """The main content of an HTML page as Markdown-like text (headings, lists, tables)."""
    import trafilatura

    try:
        text = trafilatura.extract(
            raw,  # bytes: trafilatura honours the page's declared or detected encoding
            output_format="markdown",
            include_formatting=True,  # headings become "#" lines
            include_tables=True,
            include_links=False,
            include_images=False,
            include_comments=False,
            favor_recall=True,  # a policy page is all content: keep short paragraphs too
            deduplicate=False,
        )
        metadata = trafilatura.extract_metadata(raw)
    except Exception as error:  # lxml and trafilatura raise many types on broken markup
        raise ConversionError(f"unreadable HTML ({type(error).__name__}: {error})") from error
    if not text or not text.strip():
        raise ConversionError("HTML page without main text content")
    title = metadata.title.strip() if metadata is not None and metadata.title else None
    return ConvertedText(text=text.replace("\r\n", "\n"), source_format="html", title=title)
