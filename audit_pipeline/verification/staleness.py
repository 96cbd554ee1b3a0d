"""Superseded facts: answers that repeat what the vault said before a document changed.

When a policy owner changes a retention period from 90 to 180 days, an answer that still says
90 days is not a fabrication of the bot: it was right last week. It is still wrong now, and it
needs a different fix (refresh the bot's index or its fine-tune, not its prompt), so it gets a
label of its own. A claim is ``stale`` when

- it is contradicted by the current vault,
- the last verification of the same claim (same target, prompt, turn and text) against an
  earlier vault state found it supported or weakly supported, and
- some passage that supported it then is no longer in the vault: its document changed.

The verdict keeps the ids of those superseded passages; the warehouse keeps every chunk text the
vault ever had (``vault_chunk_history``), so both versions' evidence can be shown.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from audit_pipeline.records.claims import AuditClaim
from audit_pipeline.records.verdict_provenance import ClaimKey, PriorVerdict
from audit_pipeline.records.verdicts import Label, Verdict


def claim_key(claim: AuditClaim) -> ClaimKey:
    return (claim.prompt_id, claim.turn, claim.claim.text)


def mark_stale(
    claims: Sequence[AuditClaim],
    verdicts: Sequence[Verdict],
    prior: Mapping[ClaimKey, PriorVerdict],
    current_chunks: Collection[str],
    vault_chunks_ever: Collection[str],
) -> list[Verdict]:
    """``verdicts`` with each contradicted claim that an earlier vault state supported, through
    a vault passage the vault no longer holds, relabelled ``stale``.

    ``vault_chunks_ever`` (the chunk history) tells vault passages from others: a passage of
    a bot's logged context or of the glossary is not a superseded vault chunk.
    """
    out = []
    for claim, verdict in zip(claims, verdicts, strict=True):
        before = prior.get(claim_key(claim))
        superseded = (
            tuple(
                c
                for c in before.supporting_chunk_ids
                if c in vault_chunks_ever and c not in current_chunks
            )
            if before is not None
            else ()
        )
        if (
            verdict.label is Label.CONTRADICTED
            and before is not None
            and before.label in (Label.SUPPORTED, Label.WEAKLY_SUPPORTED)
            and superseded
        ):
            verdict = replace(
                verdict,
                label=Label.STALE,
                superseded_chunk_ids=superseded,
                justification=(
                    f"Superseded: vault state {before.vault_state[:12]} supported this claim; "
                    f"the changed document now contradicts it. {verdict.justification}"
                ),
            )
        out.append(verdict)
    return out
