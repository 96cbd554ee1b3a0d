"""The verification stage over one audit: one verdict per claim, against its evidence."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from audit_pipeline.records.claims import AuditClaim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import Verdict
from audit_pipeline.verification.verdict import Verifier


def verify_claims(
    claims: Sequence[AuditClaim],
    evidence: dict[str, list[EvidencePassage]],
    verifier: Verifier,
) -> list[Verdict]:
    """One verdict per claim, in order.

    A verifier that can judge a whole answer at once (``assess``: the local verifier's
    response-level model, which weighs all claims of an answer together) gets one call per
    response; any other verifier gets all claims in one batch.
    """
    if not claims:
        return []
    assess = getattr(verifier, "assess", None)
    if not callable(assess):
        return verifier.verify(
            [c.claim for c in claims], [evidence.get(c.claim_id, []) for c in claims]
        )
    by_turn: dict[tuple[str, int], list[int]] = defaultdict(list)
    for index, claim in enumerate(claims):
        by_turn[(claim.prompt_id, claim.turn)].append(index)
    verdicts: list[Verdict | None] = [None] * len(claims)
    for indices in by_turn.values():
        assessment = assess(
            [claims[i].claim for i in indices],
            [evidence.get(claims[i].claim_id, []) for i in indices],
        )
        for i, verdict in zip(indices, assessment.verdicts, strict=True):
            verdicts[i] = verdict
    return [v for v in verdicts if v is not None]
