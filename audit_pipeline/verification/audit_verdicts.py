"""The verification stage over one audit: one verdict per claim, against its evidence."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from audit_pipeline.records.claims import AuditClaim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import Verdict
from audit_pipeline.verification.batch import Answer, History
from audit_pipeline.verification.verdict import Verifier


def verify_claims(
    claims: Sequence[AuditClaim],
    evidence: dict[str, list[EvidencePassage]],
    verifier: Verifier,
    history: History | None = None,
) -> list[Verdict]:
    """One verdict per claim, in order: the claims of each answer (prompt and turn) verified
    together, as every surface verifies an answer, one answer per call."""
    if not claims:
        return []
    by_turn: dict[tuple[str, int], list[int]] = defaultdict(list)
    for index, claim in enumerate(claims):
        by_turn[(claim.prompt_id, claim.turn)].append(index)
    verdicts: list[Verdict | None] = [None] * len(claims)
    for key, indices in by_turn.items():
        answer = Answer.of(
            [claims[i].claim for i in indices],
            [evidence.get(claims[i].claim_id, []) for i in indices],
            key,
        )
        [verified] = verifier.verify_answers([answer], history)
        for i, verdict in zip(indices, verified.verdicts, strict=True):
            verdicts[i] = verdict
    return [v for v in verdicts if v is not None]
