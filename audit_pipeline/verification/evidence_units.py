"""Evidence cut into the units a fact is stated in: sentences, and table cells with their headers.

A value is evidence for a claim only where the evidence states it about the same thing. In a
sentence that is the sentence's own wording; in a table it is the cell's row and column: the
"4 hours" in the row of the Ledger module stands under "RTO", not "RPO". So a table row is cut
into one unit per cell, restated with its row label and column header, and that label and
header are what the cell's values are about. Sentences are read across layout line breaks (a
PDF breaks a sentence after an e-mail address).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from audit_pipeline.text.sentences import sentence_spans
from audit_pipeline.text.tokens import content_stems
from audit_pipeline.verification.batch import Batch

_SEPARATOR_CELL = frozenset("-: ")


@dataclass(frozen=True)
class EvidenceUnit:
    """A sentence or table cell of one passage.

    ``about`` is set for a table cell: the content stems of its row label and column header,
    and of the heading the table stands under, which is all its values are said about.
    ``cell`` is the row label and column header alone: what tells one cell of a table from
    another (the heading is the same for all of them).
    """

    text: str
    chunk_id: str
    stems: frozenset[str]
    about: frozenset[str] | None = None
    cell: frozenset[str] | None = None


def table_cells(line: str) -> list[str]:
    return [cell.strip().strip("*").strip() for cell in line.strip().strip("|").split("|")]


def is_separator(line: str) -> bool:
    cells = table_cells(line)
    return bool(cells) and all(cell and set(cell) <= _SEPARATOR_CELL for cell in cells)


@lru_cache(maxsize=8192)
def _passage_units(text: str, chunk_id: str) -> tuple[EvidenceUnit, ...]:
    units: list[EvidenceUnit] = []
    header: list[str] | None = None
    heading = ""
    lines = text.split("\n")
    offset = 0
    prose_start = 0
    for index, line in enumerate(lines):
        stripped = line.strip()
        is_row = stripped.startswith("|") and stripped.count("|") >= 2
        if is_row:
            units.extend(_prose(text[prose_start:offset], chunk_id))
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if is_separator(stripped):
                pass
            elif is_separator(following.strip()):
                header = table_cells(stripped)
            else:
                units.extend(_row_units(stripped, header, heading, chunk_id))
            prose_start = offset + len(line) + 1
        else:
            header = None if stripped else header
            if stripped.startswith("#"):
                heading = stripped.lstrip("#").strip()
        offset += len(line) + 1
    units.extend(_prose(text[prose_start:], chunk_id))
    return tuple(units)


def _prose(text: str, chunk_id: str) -> list[EvidenceUnit]:
    return [
        EvidenceUnit(text[s:e], chunk_id, frozenset(content_stems(text[s:e])))
        for s, e in sentence_spans(text, wrapped=True)
    ]


def _row_units(
    line: str, header: list[str] | None, heading: str, chunk_id: str
) -> list[EvidenceUnit]:
    """One unit per cell, about its row label, its column and the heading the table stands
    under ("Review cycle: every 2 years" under the title of the manual it is the cycle of)."""
    cells = table_cells(line)
    row_stems = frozenset(content_stems(" ".join(cells)))
    if not header or len(header) != len(cells) or len(cells) < 2:
        return [EvidenceUnit(line, chunk_id, row_stems)]
    label = f"{cells[0]} {heading}".strip()
    units = [
        EvidenceUnit(
            f"{header[0]}: {cells[0]}",
            chunk_id,
            row_stems,
            frozenset(content_stems(f"{header[0]} {label}")),
            frozenset(content_stems(f"{header[0]} {cells[0]}")),
        )
    ]
    for column, cell in zip(header[1:], cells[1:], strict=True):
        about = frozenset(content_stems(f"{label} {column}"))
        own = frozenset(content_stems(f"{cells[0]} {column}"))
        units.append(EvidenceUnit(f"{cells[0]}, {column}: {cell}", chunk_id, row_stems, about, own))
    return units


def evidence_units(passages: Sequence[tuple[str, str]]) -> list[EvidenceUnit]:
    """The units of (chunk id, text) passages, in order, each distinct text once."""
    seen: set[str] = set()
    out: list[EvidenceUnit] = []
    for chunk_id, text in passages:
        for unit in _passage_units(text, chunk_id):
            if unit.text not in seen:
                seen.add(unit.text)
                out.append(unit)
    return out


def evidence_unit_analysis(batch: Batch) -> list[list[EvidenceUnit]]:
    """Each claim's evidence as units (sentences, table cells with their row and column), the
    analysis the specifics and polarity checks both read."""
    return [evidence_units([(p.chunk_id, p.text) for p in passages]) for passages in batch.evidence]
