"""A passage offered as evidence for a claim, with the retrieval scores that ranked it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EvidencePassage:
    """One retrieved passage offered as evidence for a claim.

    ``source`` is ``"vault"`` (the trusted knowledge base) or ``"logged_context"`` (what the
    bot itself retrieved, from a RAG log). Scores are ``None`` where that retriever did not
    return the passage; ``fused_score`` orders the list. ``fallback_mode`` marks a vault
    passage found by full-text search alone because the query could not be embedded: a verdict
    resting on it deserves less trust, so the flag travels with the passage to the warehouse.
    """

    chunk_id: str
    text: str
    document: str
    section: str
    vector_score: float | None
    bm25_score: float | None
    fused_score: float
    source: str
    fallback_mode: bool = False
