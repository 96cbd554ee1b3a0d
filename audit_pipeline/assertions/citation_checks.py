"""Citation verification: does each cited source exist and contain what the citation says?

A format check ("the reply has a [source: ...]") passes a bot that invents sources, so every
citation goes through levels that each catch one kind of invention:

1. source mapping: the label names a vault file (file name, alias or title);
2. file existence: that file is in the vault being audited;
3. content correlation: at least ``section_word_ratio`` of the significant words of the
   citation's section hint occur in the file, so "encryption-standard.md#Penetration Testing"
   fails although the file is real. A hint that names pages of a PDF (``runbook.pdf#p.2``,
   ``#Containment (p.2)``, ``#pp. 1-2``, ``#page=2``) must name pages the file has, and the
   rest of the hint is looked for on those pages (with the headings in force there) only.

Level 4 belongs to the turn, not to a citation: the suite's ``required_citation_source`` must be
among the verified cited files and each ``citation_must_contain`` string in some citation
label. A citation to another file alongside the required one is not an error.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from audit_pipeline.assertions.assertion_outcome import CITATION_SOURCE, CITATIONS, AssertionOutcome
from audit_pipeline.assertions.assertion_settings import AssertionSettings
from audit_pipeline.assertions.text_match import (
    find_phrase,
    join_limited,
    quoted,
    significant_words,
    word_set,
)
from audit_pipeline.assertions.vault_catalog import CatalogEntry, VaultCatalog
from audit_pipeline.records.responses import Citation

LEVEL_NAMES = {1: "source mapping", 2: "file exists", 3: "content correlation"}
# "p.2", "p. 2", "pp. 1-2", "page 2", "pages 1-2", "page=2" (the PDF open parameter).
_PAGE_HINT = re.compile(
    r"(?<![\w.])(?:pp?\.?|pages?\b|page=)\s*(\d{1,5})(?:\s*[-\u2013]\s*(\d{1,5}))?(?!\w)",
    re.IGNORECASE,
)
_EMPTY_BRACKETS = re.compile(r"\(\s*\)|\[\s*\]")


@dataclass(frozen=True)
class LevelResult:
    """One level for one citation; ``passed`` None means not reached (an earlier level failed)."""

    level: int
    name: str
    passed: bool | None
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "name": self.name,
            "passed": self.passed,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class CitationVerdict:
    """Levels 1-3 for one citation; ``doc_id`` is the vault file it resolved to, if any."""

    citation: Citation
    doc_id: str | None
    levels: tuple[LevelResult, ...]

    @property
    def verified(self) -> bool:
        return all(level.passed for level in self.levels)

    @property
    def failure(self) -> LevelResult | None:
        return next((level for level in self.levels if level.passed is False), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.citation.label,
            "doc_id": self.doc_id,
            "verified": self.verified,
            "levels": [level.to_dict() for level in self.levels],
        }


@dataclass(frozen=True)
class CitationCheck:
    """All citations of one reply, and the turn-level level 4 when the suite asks for it."""

    verdicts: tuple[CitationVerdict, ...]
    source: AssertionOutcome | None = None

    @property
    def total(self) -> int:
        return len(self.verdicts)

    @property
    def errors(self) -> int:
        """Citations failing any of levels 1-3."""
        return sum(not verdict.verified for verdict in self.verdicts)

    @property
    def verified_doc_ids(self) -> tuple[str, ...]:
        return tuple(
            dict.fromkeys(v.doc_id for v in self.verdicts if v.verified and v.doc_id is not None)
        )

    def outcome(self, *, require_one: bool) -> AssertionOutcome:
        """The ``citations`` assertion: every citation verified (and at least one, if asked)."""
        if not self.verdicts:
            if require_one:
                return AssertionOutcome(CITATIONS, False, "no citation in the response")
            return AssertionOutcome(CITATIONS, True, "no citation to verify")
        failed = [v for v in self.verdicts if not v.verified]
        if not failed:
            files = ", ".join(self.verified_doc_ids)
            return AssertionOutcome(
                CITATIONS, True, f"{self.total} citation(s) verified against {files}"
            )
        problems = [f"{quoted(v.citation.label)}: {_describe(v)}" for v in failed]
        return AssertionOutcome(
            CITATIONS,
            False,
            f"{len(failed)} of {self.total} citation(s) failed: {join_limited(problems)}",
        )


def _describe(verdict: CitationVerdict) -> str:
    failure = verdict.failure
    if failure is None:
        return "verified"
    return f"level {failure.level} ({failure.name}): {failure.detail}"


def verify_citation(
    citation: Citation, catalog: VaultCatalog, settings: AssertionSettings
) -> CitationVerdict:
    """Levels 1-3 for one citation."""
    name = citation.file or citation.label.partition(",")[0]
    resolution = catalog.resolve(name)
    if resolution.file is None:
        return _stopped(citation, LevelResult(1, LEVEL_NAMES[1], False, resolution.detail))
    level1 = LevelResult(1, LEVEL_NAMES[1], True, resolution.detail)
    doc_id = catalog.find_file(resolution.file)
    entry = catalog.get(doc_id) if doc_id is not None else None
    if entry is None:
        detail = f"cited file {resolution.file} is not in the vault"
        return _stopped(citation, level1, LevelResult(2, LEVEL_NAMES[2], False, detail))
    level2 = LevelResult(2, LEVEL_NAMES[2], True, f"{entry.doc_id} is in the vault")
    level3 = _correlate_pages(citation.section, entry, settings)
    if level3 is None:
        level3 = _correlate(citation.section, entry.doc_id, entry.text, entry.words, settings)
    return CitationVerdict(citation, entry.doc_id, (level1, level2, level3))


def split_page_hint(hint: str) -> tuple[tuple[int, int] | None, str]:
    """The pages a section hint names (first, last) and the hint without them."""
    match = _PAGE_HINT.search(hint)
    if match is None:
        return None, hint
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) else first
    rest = _EMPTY_BRACKETS.sub(" ", hint[: match.start()] + " " + hint[match.end() :])
    return (first, last), rest.strip(" \t,;:-\u2013>#")


def _correlate_pages(
    section: str | None, entry: CatalogEntry, settings: AssertionSettings
) -> LevelResult | None:
    """Level 3 for a hint naming pages of a paged document; None when it is not that case
    (a Markdown file keeps the plain check, so a heading such as "Landing page 2" is fine)."""
    if not entry.pages or not section:
        return None
    pages, rest = split_page_hint(section)
    if pages is None:
        return None
    first, last = pages
    count = len(entry.pages)
    label = f"p.{first}" if first == last else f"pp.{first}-{last}"
    if not 1 <= first <= last <= count:
        detail = f"{entry.doc_id} has {count} page(s); the citation names {label}"
        return LevelResult(3, LEVEL_NAMES[3], False, detail)
    if not rest:
        return LevelResult(3, LEVEL_NAMES[3], True, f"{label} of {entry.doc_id} exists")
    scope = "\n".join(entry.pages[first - 1 : last])
    result = _correlate(rest, f"{entry.doc_id} {label}", scope, word_set(scope), settings)
    return result


def _stopped(citation: Citation, *done: LevelResult) -> CitationVerdict:
    """A verdict whose last level in ``done`` failed; the later levels were not reached."""
    rest = tuple(
        LevelResult(level, LEVEL_NAMES[level], None, "not reached")
        for level in range(len(done) + 1, 4)
    )
    return CitationVerdict(citation, None, (*done, *rest))


def _correlate(
    section: str | None,
    doc_id: str,
    text: str,
    words: frozenset[str],
    settings: AssertionSettings,
) -> LevelResult:
    """Level 3. A hint with no significant word ("4.3") must itself occur in the file."""
    hint = (section or "").strip()
    if not hint:
        return LevelResult(3, LEVEL_NAMES[3], True, "no section hint to correlate")
    wanted = significant_words(hint)
    if not wanted:
        found = bool(find_phrase(text, hint))
        verb = "occurs" if found else "does not occur"
        return LevelResult(
            3, LEVEL_NAMES[3], found, f"section hint {quoted(hint)} {verb} in {doc_id}"
        )
    present = [word for word in wanted if word in words]
    ratio = len(present) / len(wanted)
    passed = ratio >= settings.section_word_ratio
    missing = [word for word in wanted if word not in words]
    detail = f"{len(present)} of {len(wanted)} section words of {quoted(hint)} found in {doc_id}"
    if missing:
        detail += f" (missing: {', '.join(missing)})"
    return LevelResult(3, LEVEL_NAMES[3], passed, detail)


def _same_file(required: str, doc_id: str, catalog: VaultCatalog) -> bool:
    wanted = catalog.find_file(required) or required
    return wanted == doc_id or posixpath.basename(wanted).casefold() == (
        posixpath.basename(doc_id).casefold()
    )


def check_citation_source(
    verdicts: Sequence[CitationVerdict],
    catalog: VaultCatalog,
    required_source: str | None,
    must_contain: Sequence[str],
) -> AssertionOutcome:
    """Level 4, the ``citation_source`` assertion."""
    problems: list[str] = []
    notes: list[str] = []
    cited = [v.doc_id for v in verdicts if v.verified and v.doc_id is not None]
    if required_source:
        if any(_same_file(required_source, doc_id, catalog) for doc_id in cited):
            notes.append(f"cites {required_source}")
        else:
            shown = ", ".join(dict.fromkeys(cited)) or "no verified file"
            problems.append(f"required source {required_source} not cited (cited: {shown})")
    labels = [v.citation.label for v in verdicts]
    for text in must_contain:
        if any(find_phrase(label, text) for label in labels):
            notes.append(f"a citation label contains {quoted(text)}")
        else:
            problems.append(f"no citation label contains {quoted(text)}")
    if problems:
        return AssertionOutcome(CITATION_SOURCE, False, "; ".join(problems))
    return AssertionOutcome(CITATION_SOURCE, True, "; ".join(notes) or "nothing required")


def verify_citations(
    citations: Sequence[Citation],
    catalog: VaultCatalog,
    settings: AssertionSettings,
    *,
    required_source: str | None = None,
    must_contain: Sequence[str] = (),
) -> CitationCheck:
    """All four levels for one reply's citations."""
    verdicts = tuple(verify_citation(citation, catalog, settings) for citation in citations)
    source = None
    if required_source or must_contain:
        source = check_citation_source(verdicts, catalog, required_source, tuple(must_contain))
    return CitationCheck(verdicts, source)
