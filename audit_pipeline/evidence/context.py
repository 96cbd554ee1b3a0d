"""Evidence from the context a bot was given, ranked per claim by hybrid search.

When a RAG log records the chunks the bot retrieved, the first question is whether the answer
is faithful to *that* context; this ranks those chunks for each claim the same way the vault
index does (vector + BM25 fused by reciprocal rank), entirely in memory.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from audit_pipeline.embedding import Embedder
from audit_pipeline.evidence.bm25 import BM25
from audit_pipeline.evidence.passages import ContextPassage, dedupe
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.text.tokens import raw_tokens

LOGGED_CONTEXT = "logged_context"


def identifiers(text: str) -> set[str]:
    """Tokens that name something exactly: codes, versions, file names, acronyms.

    Semantic similarity is blind to "ERR-4021" versus "ERR-4012"; an exact match on such a
    token is the most specific evidence there is, so it gets its own ranking in the fusion.
    """
    out: set[str] = set()
    for token in raw_tokens(text):
        has_digit = any(char.isdigit() for char in token)
        has_alpha = any(char.isalpha() for char in token)
        compound = bool(re.search(r"[A-Za-z0-9][-_./:][A-Za-z0-9]", token))
        acronym = len(token) >= 2 and token.isupper() and has_alpha
        camel = bool(re.search(r"[a-z][A-Z]", token))
        if (has_digit and has_alpha) or (compound and has_alpha) or acronym or camel:
            out.add(token.lower())
    return out


def _ranks(scores: Sequence[float], eligible: Sequence[bool]) -> dict[int, int]:
    order = sorted((i for i in range(len(scores)) if eligible[i]), key=lambda i: -scores[i])
    return {index: rank for rank, index in enumerate(order, start=1)}


class ContextEvidence:
    """Top-k passages of a fixed context for each claim, by reciprocal-rank fusion.

    Three rankings are fused: cosine similarity of sentence embeddings, BM25, and the number of
    the claim's exact identifiers a passage contains (only when the claim has any). Passage
    embeddings are computed once per instance; claims are embedded in one batch per call.
    """

    def __init__(
        self,
        passages: Sequence[str | ContextPassage],
        embedder: Embedder,
        top_k: int = 5,
        rrf_k: int = 60,
        source: str = LOGGED_CONTEXT,
    ) -> None:
        items = [p if isinstance(p, ContextPassage) else ContextPassage(p) for p in passages]
        self.passages = dedupe(items)
        self.embedder = embedder
        self.top_k = top_k
        self.rrf_k = rrf_k
        self.source = source
        self._bm25 = BM25([p.text for p in self.passages])
        self._identifiers = [identifiers(p.text) for p in self.passages]
        self._vectors: np.ndarray | None = None

    def _passage_vectors(self) -> np.ndarray:
        if self._vectors is None:
            self._vectors = self.embedder.embed([p.text for p in self.passages])
        return self._vectors

    def for_claims(self, claims: Sequence[str]) -> list[list[EvidencePassage]]:
        """The ranked evidence for each claim text, best first."""
        if not claims or not self.passages:
            return [[] for _ in claims]
        claim_vectors = self.embedder.embed(list(claims))
        similarity = claim_vectors @ self._passage_vectors().T
        return [self._rank(claim, similarity[row].tolist()) for row, claim in enumerate(claims)]

    def _rank(self, claim: str, cosine: list[float]) -> list[EvidencePassage]:
        count = len(self.passages)
        bm25 = self._bm25.scores(claim)
        wanted = identifiers(claim)
        id_hits = [float(len(wanted & ids)) for ids in self._identifiers]
        rankings = [
            _ranks(cosine, [True] * count),
            _ranks(bm25, [score > 0 for score in bm25]),
            _ranks(id_hits, [hits > 0 for hits in id_hits]),
        ]
        fused = [
            sum(1.0 / (self.rrf_k + ranking[i]) for ranking in rankings if i in ranking)
            for i in range(count)
        ]
        best = sorted(range(count), key=lambda i: (-fused[i], -cosine[i]))[: self.top_k]
        return [
            EvidencePassage(
                chunk_id=self.passages[i].chunk_id,
                text=self.passages[i].text,
                document=self.passages[i].document,
                section=self.passages[i].section,
                vector_score=float(cosine[i]),
                bm25_score=float(bm25[i]) if bm25[i] > 0 else None,
                fused_score=float(fused[i]),
                source=self.source,
            )
            for i in best
        ]


def context_evidence(
    passages: Sequence[str | ContextPassage],
    claims: Sequence[str],
    embedder: Embedder,
    top_k: int = 5,
) -> list[list[EvidencePassage]]:
    """One-shot form of :class:`ContextEvidence` for a single response and its context."""
    return ContextEvidence(passages, embedder, top_k=top_k).for_claims(claims)
