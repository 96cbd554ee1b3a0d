"""Validate one answer: claims with spans, verdicts with provenance, Self-RAG checks,
confidence, recommendation and citation class.

This is what the MCP tool and ``POST /validate`` call. It uses the audit's own extractor,
evidence ranking and verifier, so a single validation and a batch audit of the same answer
reach the same verdicts. Sources given by the caller are the evidence (is the answer faithful
to what the caller's RAG retrieved?); without them the vault is searched per claim, as in an
audit.
"""

from __future__ import annotations

import posixpath
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit_pipeline.claims.claim import ClaimExtractor
from audit_pipeline.claims.claim_length import bound_claims, cut_note
from audit_pipeline.evidence.claim_evidence import ground_claims, rank_context, vault_passage
from audit_pipeline.records.claims import Claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.responses import Citation
from audit_pipeline.records.verdicts import HALLUCINATION_LABELS, Label, Verdict
from audit_pipeline.targets.cited_sources import parse_citations
from audit_pipeline.terminology.checker import TerminologyChecker, with_definitions
from audit_pipeline.text.scripts import unread_script
from audit_pipeline.validation.citation_audit import AuditedClaim, CitationAudit, audit_citations
from audit_pipeline.validation.critics import LLMCritic, OfflineCritic
from audit_pipeline.validation.query_type import detect_query_type
from audit_pipeline.validation.selfrag import GROUNDED_LABELS, SelfRagChecks, self_rag_checks
from audit_pipeline.validation.settings import ValidationSettings
from audit_pipeline.verification.stages.base import Reads
from audit_pipeline.verification.verdict import Verifier, verify_answer

GIVEN = "given_source"


class TimeBudgetExceeded(RuntimeError):
    """The validation ran past its deadline; raised between stages, so nothing after the
    stage that overran is done (and nothing is recorded)."""

    def __init__(self, stage: str) -> None:
        super().__init__(f"the time budget ran out during {stage}")
        self.stage = stage


def _check_deadline(deadline: float | None, stage: str) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise TimeBudgetExceeded(stage)


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    verdict: Verdict
    evidence: list[EvidencePassage]

    def to_dict(self) -> dict[str, Any]:
        """The claim as the HTTP API and MCP return it. Each provenance passage says whether
        the verdict rests on it and how: ``supports`` for a supported or weakly supported
        claim, ``contradicts`` for a contradicted or stale one (a passage that contradicts the
        claim is never said to support it)."""
        decisive = set(self.verdict.supporting_chunk_ids)
        label = self.verdict.label
        backs = label in (Label.SUPPORTED, Label.WEAKLY_SUPPORTED)
        clashes = label in (Label.CONTRADICTED, Label.STALE)
        return {
            "claim_id": self.claim.claim_id,
            "text": self.claim.text,
            "start": self.claim.start,
            "end": self.claim.end,
            "kind": self.claim.kind,
            "label": str(self.verdict.label),
            "probability": self.verdict.probability,
            "justification": self.verdict.justification,
            "error_spans": [list(span) for span in self.verdict.error_spans],
            "verifier": f"{self.verdict.verifier} {self.verdict.verifier_version}",
            "decided_by": self.verdict.decided_by,
            "provenance": [
                {
                    "chunk_id": p.chunk_id,
                    "document": p.document,
                    "section": p.section,
                    "text": p.text,
                    "vector_score": p.vector_score,
                    "bm25_score": p.bm25_score,
                    "fused_score": p.fused_score,
                    "source": p.source,
                    "supports": backs and p.chunk_id in decisive,
                    "contradicts": clashes and p.chunk_id in decisive,
                }
                for p in self.evidence
            ],
        }


@dataclass(frozen=True)
class ValidationResult:
    question: str
    answer: str
    claims: list[ClaimResult]
    checks: SelfRagChecks
    citations: CitationAudit
    hallucination_probability: float | None
    sources: list[EvidencePassage]  # what isrel judged
    notes: list[str] = field(default_factory=list)
    # Terminology lookups of definitional claims: {claim_id, term, status, concepts, ...}.
    terminology: list[dict[str, Any]] = field(default_factory=list)

    @property
    def hallucinated(self) -> bool:
        return any(c.verdict.label in HALLUCINATION_LABELS for c in self.claims)

    @property
    def suspect(self) -> bool:
        """The answer-level model reads a hallucination no claim's label shows: a flag for a
        reader, not a hallucinated claim (``Verdict.answer_suspect``)."""
        return any(c.verdict.answer_suspect for c in self.claims)

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "claims": [c.to_dict() for c in self.claims],
            "hallucinated": self.hallucinated,
            "suspect": self.suspect,
            "hallucination_probability": self.hallucination_probability,
            **self.checks.to_dict(),
            "citation_class": self.citations.cls,
            "citation_detail": self.citations.detail,
            "sources": [
                {"chunk_id": s.chunk_id, "document": s.document, "section": s.section}
                for s in self.sources
            ],
            "notes": self.notes,
            "terminology": self.terminology,
        }


def document_resolver(passages: Sequence[EvidencePassage]) -> Callable[[Citation], str | None]:
    """Map a citation to one of the evidence documents by file name, title or label."""
    names: dict[str, str] = {}
    for passage in passages:
        document = passage.document
        base = posixpath.basename(document).casefold()
        for key in (document.casefold(), base, base.rsplit(".", 1)[0]):
            names.setdefault(key, document)

    def resolve(citation: Citation) -> str | None:
        name = (citation.file or citation.label.partition(",")[0]).strip().casefold()
        return names.get(name) or names.get(posixpath.basename(name))

    return resolve


class AnswerValidator:
    """The validation engine; build it once (models load once) and call it per answer.

    ``retriever`` is the vault's hybrid retriever, needed only for answers validated without
    sources; ``verifier`` must be the audit's verifier chain.
    ``max_claims`` is the audit's ``detection.max_claims_per_answer``: an answer of 100,000
    characters holds ~1,600 claims, and checking every one took minutes.
    """

    def __init__(
        self,
        *,
        embedder: Any,
        extractor: ClaimExtractor,
        verifier: Verifier,
        settings: ValidationSettings,
        retriever: Any | None = None,
        top_k: int = 5,
        judge_api_key: str | None = None,
        terminology: TerminologyChecker | None = None,
        max_claims: int | None = None,
    ) -> None:
        self.terminology = terminology
        self.max_claims = max_claims
        self.embedder = embedder
        self.extractor = extractor
        self.verifier = verifier
        self.settings = settings
        self.retriever = retriever
        self.top_k = top_k
        offline = OfflineCritic(embedder, settings)
        self.critic = (
            LLMCritic(settings, offline, judge_api_key) if settings.checks == "llm" else offline
        )

    def search(self, query: str, k: int) -> list[EvidencePassage]:
        if self.retriever is None:
            raise ValueError("no vault index to search: give sources")
        return [vault_passage(hit) for hit in self.retriever.search(query, k=k)]

    def _evidence(
        self, claims: Sequence[Claim], sources: Sequence[str] | None
    ) -> list[list[EvidencePassage]]:
        """The audit's evidence path: the caller's sources first, ranked per claim as an audit
        ranks the context a bot logged (``rank_context``), then, with a vault index, the
        vault's top-k passages and the name, identifier and date look-ups an audit makes
        (``ground_claims``). An answer validated with the context it was answered from gets
        the evidence an audit of it gets."""
        texts = [c.text for c in claims]
        if sources is None and self.retriever is None:
            raise ValueError("no vault index to search: give sources")
        ranked = (
            rank_context(
                texts,
                sources,
                self.embedder,
                self.top_k,
                GIVEN,
                [f"source-{number}" for number in range(1, len(sources) + 1)],
            )
            if sources is not None
            else [[] for _ in texts]
        )
        return ground_claims(texts, ranked, self.retriever, self.top_k)

    def _verdicts(
        self, claims: Sequence[Claim], evidence: Sequence[Sequence[EvidencePassage]]
    ) -> tuple[list[Verdict], float | None]:
        if not claims:
            return [], None
        verified = verify_answer(self.verifier, claims, evidence)
        probability = verified.hallucination_probability
        return verified.verdicts, None if probability is None else round(float(probability), 4)

    def validate(
        self,
        question: str,
        answer: str,
        sources: Sequence[str] | None = None,
        deadline: float | None = None,
    ) -> ValidationResult:
        """``deadline`` (a ``time.monotonic()`` value) is checked between stages:
        ``TimeBudgetExceeded`` once it has passed."""
        bounded = bound_claims(answer, self.extractor.extract(answer))
        claims = bounded.claims
        notes: list[str] = [cut_note(bounded.cut)] if bounded.cut else []
        script = unread_script(answer) if not claims else None
        if script is not None:
            notes.append(
                f"the answer is in {script} script, which the claim extractor does not read: "
                "nothing in it was verified"
            )
        if self.max_claims is not None and len(claims) > self.max_claims:
            notes.append(
                f"{len(claims)} claims found, the first {self.max_claims} checked "
                "(detection.max_claims_per_answer)"
            )
            claims = claims[: self.max_claims]
        _check_deadline(deadline, "claim extraction")
        # Definitional claims are checked against the terminology source first.
        terms = self.terminology.plan(question, claims) if self.terminology else []
        evidence = with_definitions(self._evidence(claims, sources), terms)
        _check_deadline(deadline, "the evidence search")
        verdicts, probability = self._verdicts(claims, evidence)
        _check_deadline(deadline, "verification")
        verdicts = self.verifier.settle(
            claims, verdicts, {Reads.GLOSSARY: {t.claim_index: t.lookup for t in terms}}
        )
        results = [ClaimResult(c, v, e) for c, v, e in zip(claims, verdicts, evidence, strict=True)]
        if sources is not None:
            judged = [
                EvidencePassage(f"source-{i}", text, f"source-{i}", "", None, None, 0.0, GIVEN)
                for i, text in enumerate(sources, start=1)
            ]
        else:
            judged = self.search(question, self.top_k) if self.retriever is not None else []
        critique = self.critic.critique(question, answer, [p.text for p in judged])
        relevance_of = {p.chunk_id: r for p, r in zip(judged, critique.relevance, strict=True)}
        grounding = self._grounding_relevance(question, results, relevance_of, sources)
        checks = self_rag_checks(
            query_type=detect_query_type(question),
            relevance=max(critique.relevance, default=0.0),
            grounding_relevance=grounding,
            addresses=critique.addresses,
            labels=[str(v.label) for v in verdicts],
            settings=self.settings,
            method=critique.method,
            notes=critique.notes,
        )
        audited = [
            AuditedClaim(
                r.claim.start,
                r.claim.end,
                str(r.verdict.label),
                frozenset(
                    p.document for p in r.evidence if p.chunk_id in r.verdict.supporting_chunk_ids
                ),
            )
            for r in results
        ]
        all_passages = [p for r in results for p in r.evidence]
        citation = audit_citations(
            answer, audited, parse_citations(answer), document_resolver(all_passages)
        )
        looked_up = [
            {"claim_id": claims[t.claim_index].claim_id, **t.lookup.to_dict()} for t in terms
        ]
        return ValidationResult(
            question,
            answer,
            results,
            checks,
            citation,
            probability,
            judged,
            notes=notes,
            terminology=looked_up,
        )

    def _grounding_relevance(
        self,
        question: str,
        results: Sequence[ClaimResult],
        relevance_of: dict[str, float],
        sources: Sequence[str] | None,
    ) -> float:
        """Relevance to the question of the best chunk that supports a grounded claim."""
        used: dict[str, str] = {}
        for result in results:
            if str(result.verdict.label) not in GROUNDED_LABELS:
                continue
            for passage in result.evidence:
                if passage.chunk_id in result.verdict.supporting_chunk_ids:
                    used[passage.chunk_id] = (
                        passage.document if sources is not None else passage.text
                    )
        if not used:
            return 0.0
        if sources is not None:  # evidence chunks are windows of a given source
            return max(relevance_of.get(document, 0.0) for document in used.values())
        known = [relevance_of[c] for c in used if c in relevance_of]
        unknown = [text for c, text in used.items() if c not in relevance_of]
        if unknown:
            known.extend(
                OfflineCritic(self.embedder, self.settings)
                .critique(question, "", unknown)
                .relevance
            )
        return max(known, default=0.0)
