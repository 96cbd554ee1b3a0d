"""A claim as read back from the warehouse: its span, label and the chunks that support it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StoredClaim:
    start: int
    end: int
    label: str | None
    supporting: tuple[str, ...]  # chunk ids
    documents: frozenset[str]  # documents of the supporting chunks
    texts: tuple[str, ...]  # texts of the supporting chunks
