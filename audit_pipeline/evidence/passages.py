"""Cutting context text into passages small enough to cite and to align with one claim."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from audit_pipeline.evidence.structured_records import leaf_line, record_leaves
from audit_pipeline.text.sentences import sentence_spans


@dataclass(frozen=True)
class ContextPassage:
    """A passage of the context a bot answered from, before it is ranked for a claim."""

    text: str
    document: str = "context"
    section: str = ""

    @property
    def chunk_id(self) -> str:
        """Content hash, so the same passage logged twice is the same chunk."""
        return hashlib.sha256(f"{self.document}\x00{self.text}".encode()).hexdigest()[:16]


def sentence_windows(text: str, max_chars: int = 400) -> Iterator[str]:
    """Consecutive sentences packed into windows of at most ``max_chars`` (longer ones alone)."""
    window: list[str] = []
    size = 0
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        if window and size + len(sentence) + 1 > max_chars:
            yield " ".join(window)
            window, size = [], 0
        window.append(sentence)
        size += len(sentence) + 1
    if window:
        yield " ".join(window)


def text_passages(
    text: str, document: str = "context", section: str = "", max_chars: int = 400
) -> list[ContextPassage]:
    return [
        ContextPassage(window, document, section) for window in sentence_windows(text, max_chars)
    ]


def record_passages(
    record: object, document: str = "record", max_chars: int = 400
) -> list[ContextPassage]:
    """Leaves of a structured record, one per line, grouped under their parent key.

    Grouping keeps "open Monday to Sunday" next to all seven opening-hours lines and the
    name, address and city of a business in one passage; long free-text leaves (reviews) are
    windowed by sentence with their key in front.
    """
    out: list[ContextPassage] = []
    groups: dict[tuple[str, ...], list[str]] = {}
    for path, value in record_leaves(record):
        line = leaf_line(path, value)
        if len(line) > max_chars:
            key = " ".join(path[-2:])
            out.extend(
                ContextPassage(f"{key}: {window}", document, " > ".join(path))
                for window in sentence_windows(value, max_chars)
            )
            continue
        groups.setdefault(path[:-1], []).append(line)
    for parent, lines in groups.items():
        section = " > ".join(parent)
        chunk: list[str] = []
        for line in lines:
            if chunk and sum(len(item) + 1 for item in chunk) + len(line) > max_chars:
                out.append(ContextPassage("\n".join(chunk), document, section))
                chunk = []
            chunk.append(line)
        if chunk:
            out.append(ContextPassage("\n".join(chunk), document, section))
    return out


def dedupe(passages: Sequence[ContextPassage]) -> list[ContextPassage]:
    seen: set[str] = set()
    out: list[ContextPassage] = []
    for passage in passages:
        if passage.chunk_id not in seen and passage.text.strip():
            seen.add(passage.chunk_id)
            out.append(passage)
    return out
