"""The evidence stage over one audit: top-k passages per claim, from the vault and from the
context the bot logged.

Vault evidence (hybrid search of the index) and logged-context evidence (``context.py``) meet
here, so every claim gets one kind of evidence record whichever way it was found, and every
surface (the audit, ``/validate``, MCP, the bot's guardrail) finds it the same way
(``ground_claims``). Two things
are added to what ranks best, because a verdict must not rest on absence that was never
looked for: a claim answered from logged context is searched in the vault too (a logged
context is often partial: a true claim it lacks is not a contradiction), and every name or
identifier a claim states that its passages lack is looked up in the whole vault word for
word (so "Okta is stated nowhere" means the vault was searched for it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from audit_pipeline.embedding import Embedder
from audit_pipeline.evidence.context import LOGGED_CONTEXT, ContextEvidence
from audit_pipeline.evidence.passages import ContextPassage
from audit_pipeline.index.hits import SearchHit
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.records.claims import AnsweredTurn, AuditClaim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.specifics.extract import Kind, Specific, extract_many
from audit_pipeline.text.normalize import reading_form

VAULT = "vault"
# Passages added per name or identifier a claim's ranked passages lack.
PHRASE_HITS = 2


def vault_passage(hit: SearchHit) -> EvidencePassage:
    """A vault search hit as evidence (the one conversion every surface uses)."""
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
    """Evidence per claim id of an audit's claims: a response that came with the context the
    bot used (a RAG log) is checked against that context first, then the vault
    (``ground_claims``)."""
    context_of = {(t.prompt_id, t.turn): t.context for t in turns if t.context}
    ranked: dict[str, list[EvidencePassage]] = {}
    by_turn: dict[tuple[str, int], list[AuditClaim]] = defaultdict(list)
    for claim in claims:
        key = (claim.prompt_id, claim.turn)
        if key in context_of:
            by_turn[key].append(claim)
    for key, turn_claims in by_turn.items():
        found = rank_context([c.claim.text for c in turn_claims], context_of[key], embedder, top_k)
        ranked.update(zip((c.claim_id for c in turn_claims), found, strict=True))
    evidence = ground_claims(
        [c.claim.text for c in claims],
        [ranked.get(c.claim_id, []) for c in claims],
        retriever,
        top_k,
    )
    return dict(zip((c.claim_id for c in claims), evidence, strict=True))


def rank_context(
    claims: Sequence[str],
    context: Sequence[str],
    embedder: Embedder,
    top_k: int,
    source: str = LOGGED_CONTEXT,
    documents: Sequence[str] | None = None,
) -> list[list[EvidencePassage]]:
    """Each claim's top-k passages of the context its answer came with: every context text is
    one passage (a retrieved chunk as the bot saw it), named ``documents[i]`` when given. The
    audit's logged context and the sources given to ``/validate`` are cut the same way, so an
    answer gets the same evidence on every surface."""
    names = documents if documents is not None else ["context"] * len(context)
    passages = [ContextPassage(text, name) for text, name in zip(context, names, strict=True)]
    return ContextEvidence(passages, embedder, top_k=top_k, source=source).for_claims(claims)


def ground_claims(
    claims: Sequence[str],
    context: Sequence[Sequence[EvidencePassage]],
    vault: HybridRetriever | None,
    top_k: int,
) -> list[list[EvidencePassage]]:
    """Evidence per claim, the one path of every surface (audit, ``/validate``, MCP, the bot's
    guardrail): the claim's ranked context passages first (``context[i]``, empty when there is
    none), then, with a ``vault``, its top-k vault passages (one search batch for all claims)
    and the vault passages holding the names, identifiers and full dates it states that its
    passages lack, looked up word for word."""
    evidence = [list(passages) for passages in context]
    if claims and vault is not None:
        queries = [reading_form(claim) for claim in claims]  # what every check reads
        hits = vault.search_many(queries, k=top_k)
        for passages, claim_hits in zip(evidence, hits, strict=True):
            _extend(passages, (vault_passage(hit) for hit in claim_hits))
        _look_up_names(queries, evidence, vault)
    return evidence


def _extend(passages: list[EvidencePassage], more: Iterable[EvidencePassage]) -> None:
    texts = {p.text for p in passages}
    for passage in more:
        if passage.text not in texts:
            texts.add(passage.text)
            passages.append(passage)


def _looked_up(specific: Specific) -> bool:
    if specific.kind is Kind.DATE:
        return specific.date is not None and specific.date.day is not None
    return specific.kind in (Kind.NAME, Kind.IDENTIFIER)


def _look_up_names(
    claims: Sequence[str], evidence: list[list[EvidencePassage]], retriever: HybridRetriever
) -> None:
    """Add the vault passages that hold a claim's names, identifiers and full dates word for
    word, for those its passages do not mention: a value stated in a table row the ranking
    missed ("Report date | 29 May 2026") must not read as absent or contradicted."""
    wanted: dict[int, list[str]] = {}
    for index, (passages, found) in enumerate(zip(evidence, extract_many(claims), strict=True)):
        held = reading_form(" ".join(p.text for p in passages)).lower()
        phrases = [s.surface for s in found if _looked_up(s) and s.surface.lower() not in held]
        if phrases:
            wanted[index] = phrases
    if not wanted:
        return
    hits = retriever.phrase_hits([p for phrases in wanted.values() for p in phrases], PHRASE_HITS)
    for index, phrases in wanted.items():
        for phrase in phrases:
            _extend(evidence[index], (vault_passage(hit) for hit in hits.get(phrase, [])))
