"""The evidence stage over one audit: top-k passages per claim, from the vault or from the
context the bot logged.

Vault evidence (hybrid search of the index) and logged-context evidence (``context.py``) meet
here, so every claim gets one kind of evidence record whichever way it was found.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from audit_pipeline.claims.audit_claims import AnsweredTurn, AuditClaim
from audit_pipeline.embedding import Embedder
from audit_pipeline.evidence.context import ContextEvidence
from audit_pipeline.evidence.passages import EvidencePassage
from audit_pipeline.index.hits import SearchHit
from audit_pipeline.index.retrieval import HybridRetriever

VAULT = "vault"


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
