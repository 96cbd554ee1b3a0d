"""Analysts' marks: a person's word on one claim's verdict, kept so the audit remembers it.

A mark names the claim (its key: prompt id, turn, claim text), the label the analyst gives it,
what the verifier had said (label and deciding stage, the verifier's own verdict even when an
earlier mark had overridden it), and the state of the evidence it was given against: a digest
of the claim's own evidence set. The mark applies to a later verdict of the same claim only
while that digest is unchanged, so an edit of the vault paragraph under the claim retires it,
while a verifier upgrade (same evidence, new identity) does not.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from audit_pipeline.records.evidence import EvidencePassage


class MarkLabel(StrEnum):
    """The labels an analyst can give: what the claim is, read against its evidence."""

    SUPPORTED = "supported"
    UNSUPPORTED = "unsupported"
    CONTRADICTED = "contradicted"


MARK_LABELS: tuple[str, ...] = tuple(str(label) for label in MarkLabel)
# The verdict labels that flag a claim (as records.verdicts.HALLUCINATION_LABELS); repeated
# here as plain strings so a mark can say "false alarm" or "miss" without the verdict module.
_FLAGGING = frozenset({"unsupported", "contradicted", "stale"})


def evidence_state(passages: tuple[EvidencePassage, ...] | list[EvidencePassage]) -> str:
    """A digest of one claim's evidence set: its passages' chunk ids and text hashes, in a
    canonical order (ranks and scores left out: a re-ranking of the same passages is not new
    evidence; the same set as ``verification.reuse.evidence_set`` uses for verdict keys)."""
    pairs = sorted(
        {(p.chunk_id, hashlib.sha256(p.text.encode("utf-8")).hexdigest()) for p in passages}
    )
    text = json.dumps(pairs, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Mark:
    """One recorded mark (a ``marks`` row)."""

    mark_id: str
    marked_at: datetime
    marked_by: str
    audit_id: str
    claim_id: str
    target: str | None
    prompt_id: str
    turn: int
    claim_text: str
    verdict_key: str | None
    evidence_state: str
    label_given: str | None  # the verifier's label when the mark was made
    decided_by_given: str | None  # the stage of the verifier that had decided it
    label_marked: MarkLabel
    note: str | None
    source: str  # cli, file, api or report

    @property
    def claim_key(self) -> tuple[str, int, str]:
        return (self.prompt_id, self.turn, self.claim_text)

    @property
    def kind(self) -> str:
        """What the mark says of the verifier: "false alarm" (flagged, marked supported),
        "miss" (passed, marked unsupported or contradicted), "confirmation" (the same label)
        or "correction" (another flagging label)."""
        given = self.label_given or ""
        marked = str(self.label_marked)
        if given == marked:
            return "confirmation"
        if given in _FLAGGING and marked == MarkLabel.SUPPORTED:
            return "false alarm"
        if given not in _FLAGGING and marked != MarkLabel.SUPPORTED:
            return "miss"
        return "correction"

    def said(self) -> str:
        """Who marked it what, when: "marked false alarm (supported) by alice on 2025-06-02";
        "confirmed supported by alice on ..." for a mark that agrees with the verifier."""
        day = self.marked_at.date().isoformat()
        if self.kind == "confirmation":
            return f"confirmed {self.label_marked} by {self.marked_by} on {day}"
        kind = "" if self.kind == "correction" else f"{self.kind} "
        return f"marked {kind}({self.label_marked}) by {self.marked_by} on {day}"


@dataclass(frozen=True)
class MarkLookup:
    """The live mark on one claim, as the mark stage reads it: the mark and whether the
    claim's evidence is still the one it was given against."""

    mark: Mark
    evidence_unchanged: bool


def marks_phrase(made: int, retired: int) -> str:
    """``2 verdicts set by analysts' marks (1 mark no longer applies: evidence changed)``; ""
    when no mark touched the audit. One wording for the CLI's summary and the report, since
    suppressed false alarms are listed, never hidden."""
    if not made and not retired:
        return ""
    text = f"{made} verdict{'s' if made != 1 else ''} set by analysts' marks"
    if retired:
        text += f" ({retired} mark{'s' if retired != 1 else ''} no longer appl"
        text += f"{'y' if retired != 1 else 'ies'}: evidence changed)"
    return text
