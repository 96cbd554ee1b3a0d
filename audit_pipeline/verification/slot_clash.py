"""What a slot check found: the claim's words for one slot of its clause (a bound, a mode, a
party, a condition, a scope) and the evidence's words for the same slot, so the reason an
auditor forwards names both ("'at least £2,000' where the evidence says 'up to £2,000'")."""

from __future__ import annotations

from dataclasses import dataclass

# How much of the evidence sentence a reason quotes.
SNIPPET_CHARS = 140


@dataclass(frozen=True)
class SlotClash:
    """A slot of a claim clause the evidence clause about the same act fills otherwise."""

    slot: str
    claim_words: str
    evidence_words: str
    evidence: str
    chunk_id: str

    def describe(self) -> str:
        snippet = self.evidence
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[: SNIPPET_CHARS - 3] + "..."
        return f"'{self.claim_words}' where the evidence says '{self.evidence_words}': {snippet!r}"
