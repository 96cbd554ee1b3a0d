"""Which verdicts can be carried over instead of computed again.

A verdict is a function of the verifier (name, version, settings), the claim and its evidence
set. The local verifier judges the claims of one answer together (its answer-level model
weighs them against each other), so the unit of reuse is an answer: when every claim of an
answer has the same text and the same evidence set as in an earlier verification, the earlier
verdicts stand; when any of them changed (a changed, removed or newly ranking chunk), the whole
answer is verified again. The evidence set is the passages' ids and texts, not their ranks or
scores: a vault change shifts BM25 statistics for every query, and a rank swap among the same
passages is not new evidence.

Keys are content hashes, so they hold across audits: ``audit-pipeline run`` on unchanged
recorded answers reuses last week's verdicts as well as a ``reverify`` after a vault edit does.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from audit_pipeline.records.claims import AuditClaim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdict_provenance import StoredVerdict


def _sha(payload: object) -> str:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def evidence_set(passages: Sequence[EvidencePassage]) -> list[list[str]]:
    """The passages as a set: (chunk id, text hash) pairs in a canonical order."""
    pairs = {(p.chunk_id, hashlib.sha256(p.text.encode("utf-8")).hexdigest()) for p in passages}
    return [list(pair) for pair in sorted(pairs)]


def verdict_keys(
    claims: Sequence[AuditClaim],
    evidence: Mapping[str, Sequence[EvidencePassage]],
    verifier_id: str,
) -> dict[str, str]:
    """claim id -> a key that changes when the verifier, or any claim of the same answer, or
    any of their evidence sets, changes."""
    by_turn: dict[tuple[str, int], list[AuditClaim]] = defaultdict(list)
    for claim in claims:
        by_turn[(claim.prompt_id, claim.turn)].append(claim)
    keys: dict[str, str] = {}
    for turn_claims in by_turn.values():
        answer = _sha(
            [
                verifier_id,
                [[c.claim.text, evidence_set(evidence.get(c.claim_id, ()))] for c in turn_claims],
            ]
        )
        for position, claim in enumerate(turn_claims):
            keys[claim.claim_id] = _sha([answer, position])
    return keys


@dataclass(frozen=True)
class ReusePlan:
    """The verdicts to carry over (by claim id) and the claims to verify now."""

    carried: dict[str, StoredVerdict]
    to_verify: list[AuditClaim]


def plan_reuse(
    claims: Sequence[AuditClaim], keys: Mapping[str, str], stored: Mapping[str, StoredVerdict]
) -> ReusePlan:
    """Carry over the answers whose every claim has a stored verdict under its key."""
    by_turn: dict[tuple[str, int], list[AuditClaim]] = defaultdict(list)
    for claim in claims:
        by_turn[(claim.prompt_id, claim.turn)].append(claim)
    carried: dict[str, StoredVerdict] = {}
    to_verify: list[AuditClaim] = []
    for turn_claims in by_turn.values():
        found = [stored.get(keys[c.claim_id]) for c in turn_claims]
        if all(f is not None for f in found):
            carried.update(
                (c.claim_id, f) for c, f in zip(turn_claims, found, strict=True) if f is not None
            )
        else:
            to_verify.extend(turn_claims)
    return ReusePlan(carried, to_verify)
