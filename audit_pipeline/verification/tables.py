"""A claim about every row (or column) of a table that some rows contradict.

"Every Harbourline cover level includes home emergency cover" repeats a table row's words
(``| Home emergency cover | Not covered | Included | Included |``) and what two of its cells say;
what it drops is the third. A sentence-level reading cannot see that: each cell alone is
about one level. Here the evidence's Markdown tables are read whole, as lines of cells: a
column with its rows ("Charge": Free, £3.50, Free) and a row with its columns. A claim that
quantifies over a table's items ("every cover level", "all delivery services", "none of the
plans") clashes with a line about what it says when

- the line's label is what the claim says ("Single sign-on") and a cell of it denies it ("Not
  available") where the claim affirms, or affirms ("Included") where the claim says "none";
- or some cells of the line are what the claim says ("Free", "Priority", "4 hours") and others
  say something else ("£3.50"): not every item is as the claim says.

The items must be what the claim quantifies: the quantified noun ("age group", "plan") is
among the words of the table's heading or of its first column's header. A claim that names one
of the items ("the Team plan"), restricts itself ("except", "unless"), quantifies a remainder
("any other use") or repeats a sentence of the evidence word for word is about some rows, or
the evidence's own words, and left to the other checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from audit_pipeline.specifics.language import parse_many
from audit_pipeline.text import wordlists
from audit_pipeline.text.tokens import content_stems, stem
from audit_pipeline.verification.evidence_units import evidence_units, is_separator, table_cells
from audit_pipeline.verification.slot_clash import SlotClash

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

_RESTRICTING = wordlists.sequence("verification", "restricting_phrases")
_ALL = frozenset({"every", "all", "each", "any"})
# "any other use", "all remaining plans": the rest of some items, not every item.
_REMAINDER = frozenset({"other", "remaining", "further"})
# A cell that says the row's feature is absent for its column ("Not covered", "No").
_DENYING = frozenset({"not", "no", "none", "excluded", "unavailable", "n/a"})
# A cell that says it is there, without a value ("Included", "Yes").
_AFFIRMING = frozenset({"included", "yes", "available", "covered"})


@dataclass(frozen=True)
class Table:
    """One Markdown table of a passage: its header, rows and the heading it stands under."""

    heading: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    text: str
    chunk_id: str


@dataclass(frozen=True)
class Line:
    """A column (its cells down the rows) or a row (its cells across the columns)."""

    label: str
    items: tuple[str, ...]
    cells: tuple[str, ...]


@lru_cache(maxsize=4096)
def _tables(text: str, chunk_id: str) -> tuple[Table, ...]:
    """The whole tables of one passage: ``evidence_units`` cuts a table into cells, each
    about its row and column, and a claim about every row needs the rows together."""
    tables: list[Table] = []
    heading = ""
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        if stripped.startswith("#"):
            heading = stripped.lstrip("#").strip()
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        if stripped.startswith("|") and is_separator(following):
            header = tuple(table_cells(stripped))
            rows: list[tuple[str, ...]] = []
            block = [stripped]
            index += 2
            while index < len(lines) and lines[index].strip().startswith("|"):
                cells = tuple(table_cells(lines[index]))
                if len(cells) == len(header):
                    rows.append(cells)
                block.append(lines[index].strip())
                index += 1
            if len(rows) >= 2 and len(header) >= 2:
                tables.append(Table(heading, header, tuple(rows), "\n".join(block), chunk_id))
            continue
        index += 1
    return tuple(tables)


def tables_of(passages: Sequence[tuple[str, str]]) -> list[Table]:
    """The Markdown tables of (chunk id, text) passages with at least two rows."""
    return [table for chunk_id, text in passages for table in _tables(text, chunk_id)]


def _columns(table: Table) -> list[Line]:
    """Each column after the first down the rows: the rows are the items."""
    labels = tuple(row[0] for row in table.rows)
    return [
        Line(table.header[j], labels, tuple(row[j] for row in table.rows))
        for j in range(1, len(table.header))
    ]


def _rows(table: Table) -> list[Line]:
    """Each row across the columns: the columns are the items ("Essential", "Premier")."""
    return [Line(row[0], table.header[1:], row[1:]) for row in table.rows]


def _lines(table: Table, quantified: _Quantified) -> list[Line]:
    """The lines whose items the claim quantifies: the rows when a noun of its phrase is in
    the first column's header ("Plan", "Age"), the columns when its head noun is in the table's
    heading ("Cover Levels" over Essential, Standard, Premier); none when the table is not
    about them (a cleaning schedule's columns are not tasks)."""
    if quantified.noun & _stems(table.header[0]):
        return _columns(table)
    if quantified.head in _stems(table.heading):
        return _rows(table)
    return []


def _stems(text: str) -> frozenset[str]:
    return frozenset(content_stems(text))


def _first_word(cell: str) -> str:
    words = cell.lower().replace(";", " ").replace(",", " ").split()
    return words[0] if words else ""


def _denies(cell: str) -> bool:
    return _first_word(cell) in _DENYING


def _affirms(cell: str) -> bool:
    return _first_word(cell) in _AFFIRMING


@dataclass(frozen=True)
class _Quantified:
    """The claim's quantified phrase, whether it says "none" of them, and what else it says."""

    phrase: str
    head: str
    noun: frozenset[str]
    narrowing: frozenset[str]
    negative: bool
    said: frozenset[str]


def _quantified(doc: Doc) -> _Quantified | None:
    """ "every cover level", "all of the plans", "all three cover levels", "none of the plans",
    "no plan": the first universally quantified noun of the claim."""
    for noun in doc:
        if noun.pos_ not in ("NOUN", "PROPN"):
            continue
        negative: bool | None = None
        for child in noun.children:
            if child.dep_ in ("det", "predet") and child.lower_ in _ALL:
                negative = False
            elif child.dep_ == "det" and child.lower_ == "no":
                negative = True
        root: Token = noun
        if negative is None and noun.dep_ == "pobj" and noun.head.lower_ == "of":
            quantifier = noun.head.head
            if quantifier.lower_ in ("all", "each", "every", "none"):
                negative = quantifier.lower_ == "none"
                root = quantifier
        if negative is None or any(c.lower_ in _REMAINDER for c in noun.children):
            continue
        of_form = root is not noun  # "none of the plans": the phrase starts at "none"
        while noun.dep_ == "compound":  # "all Quillstone plans": the plans
            noun = noun.head
        if not of_form:
            root = noun
        phrase_tokens = list(root.subtree)
        phrase = " ".join(t.text for t in phrase_tokens)
        noun_stems = frozenset(
            stem(t.lemma_.lower()) for t in phrase_tokens if t.pos_ in ("NOUN", "PROPN")
        )
        head_stem = stem(noun.lemma_.lower())
        narrowing = _stems(phrase) - {head_stem}
        inside = {t.i for t in phrase_tokens}
        said = frozenset(content_stems(" ".join(t.text for t in doc if t.i not in inside)))
        return _Quantified(phrase, head_stem, noun_stems, narrowing, negative, said)
    return None


def _negated(doc: Doc) -> bool:
    return any(t.dep_ == "neg" for t in doc)


def _restricted(claim: str) -> bool:
    padded = f" {' '.join(claim.lower().split())} "
    return any(f" {phrase} " in padded for phrase in _RESTRICTING)


def _meant(line: Line, quantified: _Quantified) -> list[tuple[str, str]]:
    """The (item, cell) pairs the claim quantifies: those its phrase's narrowing words
    ("students aged 11 to 16", "sixth form students") share most with, else all."""
    pairs = list(zip(line.items, line.cells, strict=True))
    overlap = [len(_stems(item) & quantified.narrowing) for item in line.items]
    best = max(overlap)
    return [pair for pair, shared in zip(pairs, overlap, strict=True) if shared == best]


def _line_clash(line: Line, quantified: _Quantified, claim_stems: frozenset[str]) -> str | None:
    """The evidence's words for the item the claim gets wrong, or None."""
    label = _stems(line.label)
    about_label = bool(label) and label <= claim_stems
    pairs = _meant(line, quantified)
    for item, cell in pairs:
        if about_label and not quantified.negative and _denies(cell):
            return f"{cell} for {item}"
        if about_label and quantified.negative and _affirms(cell):
            return f"{cell} for {item}"
    if quantified.negative:
        return None
    matched = [
        stems
        for _, cell in pairs
        if (stems := _stems(cell)) and not _denies(cell) and stems <= quantified.said
    ]
    if not matched:
        return None
    for item, cell in pairs:
        stems = _stems(cell)
        # "Email and phone" still says "Email": a cell holding a matched one agrees with it.
        if stems and not _affirms(cell) and not any(m <= stems for m in matched):
            return f"{cell} for {item}"
    return None


def _stated(claim_stems: frozenset[str], passages: Sequence[tuple[str, str]]) -> bool:
    """Whether a sentence of the evidence says every word of the claim: then the quantifier is
    the evidence's own ("any other RSA use require RSA keys of at least 3072 bits")."""
    return any(
        unit.about is None and claim_stems <= unit.stems for unit in evidence_units(passages)
    )


def table_clash(claim: str, passages: Sequence[tuple[str, str]]) -> SlotClash | None:
    """A claim about every item of an evidence table that a line of the table contradicts."""
    tables = tables_of(passages)
    if not tables or _restricted(claim):
        return None
    doc = parse_many([claim])[0]
    quantified = _quantified(doc)
    if quantified is None or (not quantified.negative and _negated(doc)):
        return None
    claim_stems = _stems(claim)
    if _stated(claim_stems, passages):
        return None
    for table in tables:
        # A line the claim names an item of ("the Team plan") is one the claim is about a
        # row of; the line that best shares the claim's words is read first.
        lines = [
            line
            for line in _lines(table, quantified)
            if not any((stems := _stems(item)) and stems <= claim_stems for item in line.items)
        ]
        lines.sort(key=lambda line: -len(_stems(line.label) & claim_stems))
        for line in lines:
            found = _line_clash(line, quantified, claim_stems)
            if found is not None:
                return SlotClash("scope", quantified.phrase, found, table.text, table.chunk_id)
    return None
