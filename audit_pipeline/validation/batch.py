"""Self-RAG checks and citation classes for every answer of a batch audit.

The verdicts are already in the warehouse; the run package reads them back with their
supporting chunks and stores the result (``runs/validations.py``). This judges each answer the
way the single-answer engine does (same critics, same formula, same citation rule): one
``response_validations`` row per answered turn. With
``validation.strict_citations`` the citation class also becomes a ``citation_class`` assertion
that fails every answer which is not fully cited.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from audit_pipeline.assertions.assertion_settings import AssertionSettings
from audit_pipeline.assertions.citation_checks import verify_citation
from audit_pipeline.assertions.vault_catalog import VaultCatalog
from audit_pipeline.embedding import MemoEmbedder
from audit_pipeline.records.assertions import AssertionRow
from audit_pipeline.records.responses import Citation, ResponseRecord
from audit_pipeline.records.stored_claims import StoredClaim
from audit_pipeline.targets.cited_sources import parse_citations
from audit_pipeline.validation.citation_audit import AuditedClaim, CitationAudit, audit_citations
from audit_pipeline.validation.critics import LLMCritic, OfflineCritic
from audit_pipeline.validation.query_type import detect_query_type
from audit_pipeline.validation.selfrag import GROUNDED_LABELS, SelfRagChecks, self_rag_checks
from audit_pipeline.validation.settings import ValidationSettings

CITATION_CLASS = "citation_class"
TurnKey = tuple[str, int]


def catalog_resolver(
    catalog: VaultCatalog, rules: AssertionSettings
) -> Callable[[Citation], str | None]:
    """A citation's vault file when it passes citation levels 1-3, else None."""

    def resolve(citation: Citation) -> str | None:
        verdict = verify_citation(citation, catalog, rules)
        return verdict.doc_id if verdict.verified else None

    return resolve


def _squeeze(text: str) -> str:
    return " ".join(text.split()).casefold()


# The vault's documents are squeezed once, not once per claim that asks about them.
_squeezed_document = lru_cache(maxsize=1024)(_squeeze)


def holding_documents(catalog: VaultCatalog, texts: Sequence[str]) -> frozenset[str]:
    """Vault files that contain one of ``texts`` verbatim (whitespace aside).

    A claim checked against a RAG log rests on logged passages, which name no file; the
    citation is then checked against the vault file that holds the passage.
    """
    wanted = [_squeeze(t) for t in texts if t.strip()]
    return frozenset(
        entry.doc_id
        for entry in catalog.entries
        if any(piece in _squeezed_document(entry.text) for piece in wanted)
    )


def citation_class(
    record: ResponseRecord,
    claims: Sequence[StoredClaim],
    resolve: Any,
    catalog: VaultCatalog | None = None,
) -> CitationAudit:
    text = record.response or ""
    in_text = parse_citations(text)
    reported = [c for c in record.citations if c.start is None]
    audited = [
        AuditedClaim(
            c.start,
            c.end,
            c.label,
            c.documents | holding_documents(catalog, c.texts) if catalog else c.documents,
        )
        for c in claims
    ]
    return audit_citations(text, audited, [*in_text, *reported], resolve)


def strict_citation_rows(
    records: Sequence[ResponseRecord],
    claims: Mapping[TurnKey, Sequence[StoredClaim]],
    categories: Mapping[str, str],
    catalog: VaultCatalog,
    rules: AssertionSettings,
) -> list[AssertionRow]:
    """One ``citation_class`` assertion per answer with factual claims: passes only when
    fully cited (``validation.strict_citations``)."""
    resolve = catalog_resolver(catalog, rules)
    rows = []
    for record in records:
        if record.error or not record.response:
            continue
        audit = citation_class(
            record, claims.get((record.prompt_id, record.turn), []), resolve, catalog
        )
        if audit.cls is None:
            continue
        rows.append(
            AssertionRow(
                prompt_id=record.prompt_id,
                turn=record.turn,
                category=categories.get(record.prompt_id, ""),
                assertion=CITATION_CLASS,
                passed=audit.cls == "fully_cited",
                detail=audit.detail + " (strict_citations)",
            )
        )
    return rows


def validation_row(
    audit_id: str, prompt_id: str, turn: int, checks: SelfRagChecks, citations: CitationAudit
) -> dict[str, Any]:
    row = checks.to_dict()
    return {
        "audit_id": audit_id,
        "prompt_id": prompt_id,
        "turn": turn,
        **row,
        "citation_class": citations.cls,
        "cited_claims": citations.cited_and_supported,
    }


def validate_answers(
    audit_id: str,
    records: Sequence[ResponseRecord],
    claims: Mapping[TurnKey, list[StoredClaim]],
    *,
    embedder: Any,
    retriever: Any | None,
    catalog: VaultCatalog,
    rules: AssertionSettings,
    settings: ValidationSettings,
    top_k: int = 5,
    judge_api_key: str | None = None,
) -> list[dict[str, Any]]:
    """The ``response_validations`` rows of one audit's answers (``claims``: each answer's
    stored claims with their verdicts and supporting chunks).

    Every text the offline critic compares (questions, answers, retrieved and supporting
    passages) is embedded once, in batches, before the answers are judged one by one: the
    same vault passages come back for many answers, and one text at a time is an order of
    magnitude slower on a CPU.
    """
    embedder = MemoEmbedder(embedder)
    offline = OfflineCritic(embedder, settings)
    critic = LLMCritic(settings, offline, judge_api_key) if settings.checks == "llm" else offline
    resolve = catalog_resolver(catalog, rules)
    answered = [r for r in records if not r.error and r.response]
    searched = [r for r in answered if not r.context]
    found = (
        retriever.search_many([r.prompt for r in searched], k=top_k)
        if retriever is not None and searched
        else [[] for _ in searched]
    )
    retrieved = {
        (r.prompt_id, r.turn): [hit.text for hit in hits]
        for r, hits in zip(searched, found, strict=True)
    }
    texts = [text for r in answered for text in (r.prompt, r.response or " ", *(r.context or ()))]
    texts += [text for passages in retrieved.values() for text in passages]
    texts += [text for turn in claims.values() for c in turn for text in c.texts]
    embedder.embed(list(dict.fromkeys(texts)))
    rows = []
    for record in answered:
        turn_claims = claims.get((record.prompt_id, record.turn), [])
        sources = list(record.context or retrieved[(record.prompt_id, record.turn)])
        critique = critic.critique(record.prompt, record.response or "", sources)
        used = list(
            dict.fromkeys(
                text for c in turn_claims if c.label in GROUNDED_LABELS for text in c.texts
            )
        )
        grounding = max(offline.critique(record.prompt, "", used).relevance, default=0.0)
        checks = self_rag_checks(
            query_type=detect_query_type(record.prompt),
            relevance=max(critique.relevance, default=0.0),
            grounding_relevance=grounding,
            addresses=critique.addresses,
            labels=[c.label for c in turn_claims if c.label is not None],
            settings=settings,
            method=critique.method,
            notes=critique.notes,
        )
        audit = citation_class(record, turn_claims, resolve, catalog)
        rows.append(validation_row(audit_id, record.prompt_id, record.turn, checks, audit))
    return rows
