"""Find the sources a reply cites, with their character spans.

Two written forms are recognised: the project's ``[source: file.md#Section]`` and the Shield Bot
seed's ``Based on [Label, Section]:``. Spans let reports highlight the citation in the answer;
mapping a free-text label to a vault file is left to the assertion step, which knows the vault.
"""

from __future__ import annotations

import re

from audit_pipeline.records.responses import Citation

_SOURCE = re.compile(r"\[\s*source\s*:\s*([^\]\n]{1,500})\]", re.IGNORECASE)
_BASED_ON = re.compile(r"\bbased on\s*\[([^\]\n]{1,500})\]", re.IGNORECASE)
_FILE_NAME = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")


def parse_citations(text: str) -> tuple[Citation, ...]:
    """All citations in ``text``, in order of appearance.

    Several sources in one bracket may be separated by ``;``: each becomes its own citation with
    the bracket's span.
    """
    found: list[tuple[int, Citation]] = []
    for match in _SOURCE.finditer(text):
        for part in match.group(1).split(";"):
            if part.strip():
                found.append((match.start(), _from_source(part, match.start(), match.end())))
    for match in _BASED_ON.finditer(text):
        label = match.group(1).strip()
        if label and not label.lower().startswith("source:"):
            found.append((match.start(), _from_label(label, match.start(), match.end())))
    return tuple(citation for _, citation in sorted(found, key=lambda item: item[0]))


def citation_from_label(label: str) -> Citation:
    """A citation a target reported as a string (``file.md#Section``, ``[source: ...]``, or a
    free-text label), without a position in the answer."""
    text = label.strip()
    bracketed = _SOURCE.fullmatch(text)
    if bracketed:
        return _from_source(bracketed.group(1), None, None)
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1].strip()
    head = text.split("#", 1)[0].strip()
    if "#" in text or _FILE_NAME.search(head):
        return _from_source(text, None, None)
    return _from_label(text, None, None)


def _from_source(part: str, start: int | None, end: int | None) -> Citation:
    label = part.strip()
    file, _, section = label.partition("#")
    file_name, section_name = file.strip() or None, section.strip() or None
    return Citation(label=label, file=file_name, section=section_name, start=start, end=end)


def _from_label(label: str, start: int | None, end: int | None) -> Citation:
    """Seed form ``Document Title, Section``: the part after the first comma is the section."""
    title, _, section = label.partition(",")
    file = title.strip() if _FILE_NAME.search(title.strip()) else None
    return Citation(label=label, file=file, section=section.strip() or None, start=start, end=end)
