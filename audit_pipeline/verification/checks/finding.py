"""What a check found about one claim, and the interface every check implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.features import Alignment


@dataclass(frozen=True)
class Finding:
    """A check's decision about one claim: the label it sets whatever the learned model reads,
    why, and the evidence it rests on (``chunk_ids``; empty: the claim's supporting chunks)."""

    label: Label
    check: str
    reason: str
    chunk_ids: tuple[str, ...] = ()


class Check(Protocol):
    """One named check; ``find`` returns its finding, or None when it has nothing to say."""

    name: str

    def find(self, alignment: Alignment) -> Finding | None: ...
