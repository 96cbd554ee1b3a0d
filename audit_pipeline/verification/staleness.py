"""Superseded facts: answers that repeat what the vault said before a document changed.

When a policy owner changes a retention period from 90 to 180 days, an answer that still says
90 days is not a fabrication of the bot: it was right last week. It is still wrong now, and it
needs a different fix (refresh the bot's index or its fine-tune, not its prompt), so it gets a
label of its own. A claim is ``stale`` when

- it is contradicted by the current vault,
- the last verification of the same claim (same target, prompt, turn and text) against an
  earlier vault state found it supported or weakly supported, and
- some passage that supported it then is no longer in the vault: its document changed.

The stage that labels it is ``stages/staleness.py``; the verdict keeps the ids of those
superseded passages; the warehouse keeps every chunk text the
vault ever had (``vault_chunk_history``), so both versions' evidence can be shown.
"""

from __future__ import annotations

from audit_pipeline.records.claims import AuditClaim
from audit_pipeline.records.verdict_provenance import ClaimKey, PriorVerdict
from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.batch import History


def claim_key(claim: AuditClaim) -> ClaimKey:
    return (claim.prompt_id, claim.turn, claim.claim.text)


def superseded_by(history: History, key: ClaimKey) -> tuple[PriorVerdict, tuple[str, ...]] | None:
    """The earlier verdict that supported the claim ``key`` names and the vault passages it
    rested on that the vault no longer holds, when there are such passages (None otherwise).

    ``chunks_ever`` (the chunk history) tells vault passages from others: a passage of a bot's
    logged context or of the glossary is not a superseded vault chunk.
    """
    before = history.prior.get(key)
    if before is None or before.label not in (Label.SUPPORTED, Label.WEAKLY_SUPPORTED):
        return None
    superseded = tuple(
        c
        for c in before.supporting_chunk_ids
        if c in history.chunks_ever and c not in history.current_chunks
    )
    return (before, superseded) if superseded else None
