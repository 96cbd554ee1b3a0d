"""HTML page to Markdown-like text: the main content only (trafilatura).

A page saved from a help centre or a status site carries navigation, cookie banners, scripts,
related-article boxes and a footer around the text that matters. Indexed as is, every chunk
would share that boilerplate and keyword search would find "Pricing" and "Careers" in every
policy. trafilatura finds the main content (and drops ``<script>``, ``<style>``, ``<nav>``,
``<header>``, ``<footer>`` and link lists) and writes its headings as ``#`` lines, so the
chunker sees sections.

lxml stops reading at 256 nested elements without a word, so a page nested deeper came out as
its title alone and was indexed as if read. The nesting is measured first and a page deeper
than lxml reads is refused, as is a page whose extraction yields headings and no text.
"""

from __future__ import annotations

import re

from audit_pipeline.vault.formats.converted import ConversionError, ConvertedText

MAX_DEPTH = 250  # below libxml2's 256, past which the rest of the page is silently lost
_TAG = re.compile(rb"<(/?)([A-Za-z][A-Za-z0-9:-]*)[^>]*?(/?)>")
_SKIPPED = re.compile(rb"<!--.*?-->|<(script|style)\b.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
# Elements that never enclose others (void) or whose end tag may be left out: they add no depth.
_FLAT = frozenset(
    b"area base br col embed hr img input link meta param source track wbr "
    b"p li dt dd tr td th option optgroup thead tbody tfoot colgroup rt rp".split()
)


def nesting_depth(raw: bytes) -> int:
    """The deepest element nesting of the markup (comments, scripts and styles skipped)."""
    depth = deepest = 0
    for closing, name, self_closing in _TAG.findall(_SKIPPED.sub(b"", raw)):
        if name.lower() in _FLAT or self_closing:
            continue
        if closing:
            depth = max(depth - 1, 0)
        else:
            depth += 1
            deepest = max(deepest, depth)
    return deepest


def convert_html(raw: bytes) -> ConvertedText:
    """The main content of an HTML page as Markdown-like text (headings, lists, tables)."""
    import trafilatura

    depth = nesting_depth(raw)
    if depth > MAX_DEPTH:
        raise ConversionError(
            f"HTML nested {depth} elements deep (more than {MAX_DEPTH}): the text below that "
            "depth cannot be read"
        )
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
    if not text or not any(
        line.strip() and not line.lstrip().startswith("#") for line in text.splitlines()
    ):
        raise ConversionError("HTML page without main text content")  # headings alone are none
    title = metadata.title.strip() if metadata is not None and metadata.title else None
    return ConvertedText(text=text.replace("\r\n", "\n"), source_format="html", title=title)
