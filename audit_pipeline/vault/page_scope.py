"""What a page of a paged (PDF) document holds, as a page citation sees it.

A citation ``manual.pdf#Containment (p.2)`` names a page and a section; the page's text alone
may not carry the section's heading (the heading sits on page 1, the section runs on), so a
page's scope is its text plus the headings of the sections that run over it.
"""

from __future__ import annotations

from audit_pipeline.vault.chunking import split_sections


def page_scopes(text: str, page_starts: tuple[int, ...]) -> tuple[str, ...]:
    """One string per page: the page's text, then the headings in force on it."""
    if not page_starts:
        return ()
    sections = split_sections(text)
    ends = (*page_starts[1:], len(text))
    scopes: list[str] = []
    for start, end in zip(page_starts, ends, strict=True):
        headings = dict.fromkeys(
            name
            for section in sections
            if section.start < max(end, start + 1) and section.end > start
            for name in section.path
        )
        scopes.append("\n".join([text[start:end], *headings]))
    return tuple(scopes)
