"""The detection stages over one audit: responses → claims → evidence → verdicts.

These functions are what the Dagster assets call, and what a notebook can call directly. They
take and return plain records; reading and writing the warehouse happens in
``warehouse/detection_tables.py`` so every stage can be re-run from stored rows (a ``reverify``
run days after the target was called).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from audit_pipeline.claims.model import Claim, ClaimExtractor
from audit_pipeline.embedding import Embedder
from audit_pipeline.evidence.context import ContextEvidence
from audit_pipeline.evidence.passages import EvidencePassage
from audit_pipeline.index.hits import SearchHit
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.verification.model import Verdict, Verifier

VAULT = "vault"


@dataclass(frozen=True)
class AnsweredTurn:
    """A response as the detection stages see it."""

    prompt_id: str
    turn: int
    response: str | None
    context: tuple[str, ...] | None = None
    error: str | None = None


@dataclass(frozen=True)
class AuditClaim:
    """A claim of one response of one audit; ``claim_id`` is unique within the audit."""

    claim_id: str
    prompt_id: str
    turn: int
    claim: Claim
    extractor: str


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


def extract_claims(
    turns: Iterable[AnsweredTurn], extractor: ClaimExtractor, max_per_answer: int | None = None
) -> ClaimExtraction:
    """Claims of every answered turn; failed calls and empty answers have none.

    ``max_per_answer`` keeps the first claims of an answer (in text order): a megabyte of one
    sentence repeated must not cost hours of verification, and the cap is reported.
    """
    claims: list[AuditClaim] = []
    capped: list[CappedAnswer] = []
    for turn in turns:
        if turn.error or not turn.response:
            continue
        found = extractor.extract(turn.response)
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
    return ClaimExtraction(claims, capped)


def _vault_passage(hit: SearchHit) -> EvidencePassage:
    return EvidencePassage(
        chunk_id=hit.chunk_id,
        text=hit.text,
        document=hit.document,
        section=hit.section,
        vector_score=hit.vector_score,
        bm25_score=hit.bm25_score,
        fused_score=hit.fused_score,
        source=VAULT,
        fallback_mode=hit.fallback_mode,
    )


def gather_evidence(
    claims: Sequence[AuditClaim],
    turns: Iterable[AnsweredTurn],
    retriever: HybridRetriever,
    embedder: Embedder,
    top_k: int,
) -> dict[str, list[EvidencePassage]]:
    """Top-k evidence per claim id.

    A response that came with the context the bot used (a RAG log) is checked against that
    context: the question is whether the answer is faithful to what the bot saw. Every other
    response is checked against the vault, searched once per claim in one embedding batch.
    """
    context_of = {(t.prompt_id, t.turn): t.context for t in turns if t.context}
    evidence: dict[str, list[EvidencePassage]] = {}
    by_turn: dict[tuple[str, int], list[AuditClaim]] = defaultdict(list)
    vault_claims: list[AuditClaim] = []
    for claim in claims:
        key = (claim.prompt_id, claim.turn)
        (by_turn[key] if key in context_of else vault_claims).append(claim)
    for key, turn_claims in by_turn.items():
        ranked = ContextEvidence(context_of[key], embedder, top_k=top_k).for_claims(
            [c.claim.text for c in turn_claims]
        )
        evidence.update(zip((c.claim_id for c in turn_claims), ranked, strict=True))
    if vault_claims:
        hits = retriever.search_many([c.claim.text for c in vault_claims], k=top_k)
        for claim, claim_hits in zip(vault_claims, hits, strict=True):
            evidence[claim.claim_id] = [_vault_passage(hit) for hit in claim_hits]
    return evidence


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
