"""The result type every retriever returns, so consumers never depend on a storage engine."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SearchHit:
    """One retrieved chunk with the scores that ranked it.

    ``vector_score`` is cosine similarity (higher is closer) and ``bm25_score`` the full-text
    relevance; either is ``None`` when that side of the hybrid search did not return the chunk.
    ``fused_score`` is the reciprocal-rank-fusion score that orders the final list.

    ``fallback_mode`` is True when the query could not be embedded (the embedding call failed
    or its circuit breaker was open) and the hit came from full-text search alone: the verdict
    built on it rests on weaker evidence, and the warehouse keeps that fact next to it.
    """

    chunk_id: str
    document: str  # path relative to the vault root, e.g. "encryption-standard.md"
    title: str
    section: str  # heading path joined with " > "
    text: str
    start: int  # character offsets of the chunk inside the document text
    end: int
    vector_score: float | None
    bm25_score: float | None
    fused_score: float
    fallback_mode: bool = False
