"""The claim stage over one audit: answered turns in, claims with audit-wide ids out.

What the ``claims`` asset calls (and a notebook can). Plain records in and out; reading and
writing the warehouse happens in the asset (``warehouse/verdict_tables.py`` stores the rows), so
the stage can re-run from stored rows (a ``reverify`` run days after the target was called).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from audit_pipeline.claims.claim import ClaimExtractor
from audit_pipeline.claims.claim_length import bound_claims
from audit_pipeline.records.claims import AnsweredTurn, AuditClaim, Claim


def audit_claim_id(prompt_id: str, turn: int, claim: Claim) -> str:
    """Stable across re-runs of the same audit: the same response yields the same ids."""
    key = f"{prompt_id}\0{turn}\0{claim.start}:{claim.end}\0{claim.text}"
    return hashlib.sha256(key.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class CappedAnswer:
    """An answer with more claims than ``max_claims_per_answer``: only the first ``kept`` are
    checked. Reported, because an unchecked claim is not a checked one."""

    prompt_id: str
    turn: int
    found: int
    kept: int

    @property
    def dropped(self) -> int:
        return self.found - self.kept


@dataclass(frozen=True)
class ClaimExtraction:
    claims: list[AuditClaim]
    capped: list[CappedAnswer]
    # (prompt id, turn, sentences cut) of answers with sentences over the claim length limit
    cut: list[tuple[str, int, int]] = field(default_factory=list)


def extract_claims(
    turns: Iterable[AnsweredTurn], extractor: ClaimExtractor, max_per_answer: int | None = None
) -> ClaimExtraction:
    """Claims of every answered turn; failed calls and empty answers have none.

    ``max_per_answer`` keeps the first claims of an answer (in text order): a megabyte of one
    sentence repeated must not cost hours of verification, and the cap is reported. A claim
    over the length limit is cut into fragments first (``claim_length``), so the cap bounds
    an answer's work whatever its shape.
    """
    claims: list[AuditClaim] = []
    capped: list[CappedAnswer] = []
    cut: list[tuple[str, int, int]] = []
    for turn in turns:
        if turn.error or not turn.response:
            continue
        bounded = bound_claims(turn.response, extractor.extract(turn.response))
        found = bounded.claims
        if bounded.cut:
            cut.append((turn.prompt_id, turn.turn, bounded.cut))
        if max_per_answer is not None and len(found) > max_per_answer:
            capped.append(CappedAnswer(turn.prompt_id, turn.turn, len(found), max_per_answer))
            found = found[:max_per_answer]
        for claim in found:
            claims.append(
                AuditClaim(
                    claim_id=audit_claim_id(turn.prompt_id, turn.turn, claim),
                    prompt_id=turn.prompt_id,
                    turn=turn.turn,
                    claim=claim,
                    extractor=extractor.name,
                )
            )
    return ClaimExtraction(claims, capped, cut)
