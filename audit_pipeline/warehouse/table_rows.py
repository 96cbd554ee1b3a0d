"""Typed rows of the detection tables: ``claims``, ``evidence`` and ``verdicts``.

The engine's records become table rows here and nowhere else. A pydantic model per table
checks every column's type and nullability before DuckDB sees the row, so a wrong value fails
at the boundary naming the table and the column, instead of as an Arrow conversion error in the
middle of a write; rows read back pass through the same model (pandas' NaN / NA read as None).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, field_validator

from audit_pipeline.records.claims import AuditClaim, Claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import Label, Verdict
from audit_pipeline.warehouse.store import or_none


class TableRow(BaseModel):
    """One row of one table; columns are the field names."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _from_pandas(cls, value: Any) -> Any:
        """Values as pandas reads them back: NaN / NA as None, list columns as lists."""
        if isinstance(value, np.ndarray):
            return value.tolist()
        return or_none(value)

    def column_values(self) -> dict[str, Any]:
        return self.model_dump()


class ClaimRow(TableRow):
    audit_id: str
    prompt_id: str
    turn: int
    claim_id: str
    text: str
    start_char: int
    end_char: int
    kind: str
    extractor: str
    extraction_key: str | None = None

    @classmethod
    def of(cls, audit_id: str, claim: AuditClaim, extraction_key: str | None = None) -> ClaimRow:
        return cls(
            audit_id=audit_id,
            prompt_id=claim.prompt_id,
            turn=claim.turn,
            claim_id=claim.claim_id,
            text=claim.claim.text,
            start_char=claim.claim.start,
            end_char=claim.claim.end,
            kind=claim.claim.kind,
            extractor=claim.extractor,
            extraction_key=extraction_key,
        )

    def audit_claim(self) -> AuditClaim:
        claim = Claim(
            claim_id=self.claim_id,
            text=self.text,
            start=self.start_char,
            end=self.end_char,
            kind=self.kind,
        )
        return AuditClaim(self.claim_id, self.prompt_id, self.turn, claim, self.extractor)


class EvidenceRow(TableRow):
    audit_id: str
    claim_id: str
    rank: int
    chunk_id: str
    document: str | None
    section: str | None
    text: str
    vector_score: float | None
    bm25_score: float | None
    fused_score: float
    source: str
    fallback_mode: bool

    @classmethod
    def of(cls, audit_id: str, claim_id: str, rank: int, passage: EvidencePassage) -> EvidenceRow:
        return cls(
            audit_id=audit_id,
            claim_id=claim_id,
            rank=rank,
            chunk_id=passage.chunk_id,
            document=passage.document,
            section=passage.section,
            text=passage.text,
            vector_score=passage.vector_score,
            bm25_score=passage.bm25_score,
            fused_score=passage.fused_score,
            source=passage.source,
            fallback_mode=passage.fallback_mode,
        )

    def passage(self) -> EvidencePassage:
        return EvidencePassage(
            chunk_id=self.chunk_id,
            text=self.text,
            document=self.document or "",
            section=self.section or "",
            vector_score=self.vector_score,
            bm25_score=self.bm25_score,
            fused_score=self.fused_score,
            source=self.source,
            fallback_mode=self.fallback_mode,
        )


class VerdictRow(TableRow):
    audit_id: str
    claim_id: str
    prompt_id: str
    turn: int
    label: str
    probability: float | None
    justification: str | None
    supporting_chunk_ids: list[str]
    verifier: str
    verifier_version: str
    decided_by: str
    judge_calls: int | None
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    # JSON [[start, end], ...] relative to the claim text, so it stays meaningful whatever span
    # the claim has in the response.
    error_spans: str
    # Re-verifying what changed (verification/reuse.py): the content key, the vault state the
    # evidence came from, and the audit that computed a verdict carried over unchanged.
    verdict_key: str | None = None
    vault_state: str | None = None
    carried_from: str | None = None
    superseded_chunk_ids: list[str] | None = None
    # Set after the verdict was written when its vault evidence changed during the audit
    # (runs/evidence_changes.py): a fact about that audit, never carried over with the verdict.
    evidence_changed: str | None = None
    # Where an analyst's mark changed the verdict: the verifier's own, JSON (verdict_json).
    verifier_verdict: str | None = None
    answer_suspect: bool = False

    @classmethod
    def of(
        cls,
        audit_id: str,
        claim: AuditClaim,
        verdict: Verdict,
        *,
        verdict_key: str | None = None,
        vault_state: str | None = None,
        carried_from: str | None = None,
        verifier_verdict: Verdict | None = None,
    ) -> VerdictRow:
        return cls(
            audit_id=audit_id,
            claim_id=claim.claim_id,
            prompt_id=claim.prompt_id,
            turn=claim.turn,
            label=str(verdict.label),
            probability=verdict.probability,
            justification=verdict.justification,
            supporting_chunk_ids=list(verdict.supporting_chunk_ids),
            verifier=verdict.verifier,
            verifier_version=verdict.verifier_version,
            decided_by=verdict.decided_by,
            judge_calls=verdict.judge_calls,
            prompt_tokens=verdict.prompt_tokens,
            completion_tokens=verdict.completion_tokens,
            cost_usd=verdict.cost_usd,
            error_spans=json.dumps([[int(lo), int(hi)] for lo, hi in verdict.error_spans]),
            verdict_key=verdict_key,
            vault_state=vault_state,
            carried_from=carried_from,
            superseded_chunk_ids=list(verdict.superseded_chunk_ids) or None,
            verifier_verdict=None if verifier_verdict is None else verdict_json(verifier_verdict),
            answer_suspect=verdict.answer_suspect,
        )

    def unmarked_verdict(self) -> Verdict:
        """The verifier's own verdict: the one stored beside a mark's, else this row's."""
        if self.verifier_verdict:
            return verdict_from_json(self.verifier_verdict)
        return self.verdict()

    def verdict(self) -> Verdict:
        """The verdict as computed; what its judge calls cost stays with the audit that paid."""
        spans = json.loads(self.error_spans) if self.error_spans else []
        return Verdict(
            label=Label(self.label),
            probability=self.probability if self.probability is not None else 0.0,
            justification=self.justification or "",
            supporting_chunk_ids=tuple(self.supporting_chunk_ids),
            verifier=self.verifier,
            verifier_version=self.verifier_version,
            decided_by=self.decided_by,
            judge_calls=0,
            prompt_tokens=0,
            completion_tokens=0,
            cost_usd=0.0,
            error_spans=tuple((int(lo), int(hi)) for lo, hi in spans),
            superseded_chunk_ids=tuple(self.superseded_chunk_ids or ()),
            answer_suspect=bool(self.answer_suspect),
        )


def verdict_json(verdict: Verdict) -> str:
    """A verdict as JSON (what it cost is left out: that stays with the audit that paid)."""
    return json.dumps(
        {
            "label": str(verdict.label),
            "probability": verdict.probability,
            "justification": verdict.justification,
            "supporting_chunk_ids": list(verdict.supporting_chunk_ids),
            "verifier": verdict.verifier,
            "verifier_version": verdict.verifier_version,
            "decided_by": verdict.decided_by,
            "error_spans": [[int(lo), int(hi)] for lo, hi in verdict.error_spans],
            "superseded_chunk_ids": list(verdict.superseded_chunk_ids),
            "answer_suspect": verdict.answer_suspect,
        },
        sort_keys=True,
    )


def verdict_from_json(text: str) -> Verdict:
    data = json.loads(text)
    return Verdict(
        label=Label(data["label"]),
        probability=float(data["probability"]),
        justification=data["justification"],
        supporting_chunk_ids=tuple(data["supporting_chunk_ids"]),
        verifier=data["verifier"],
        verifier_version=data["verifier_version"],
        decided_by=data["decided_by"],
        judge_calls=0,
        prompt_tokens=0,
        completion_tokens=0,
        cost_usd=0.0,
        error_spans=tuple((int(lo), int(hi)) for lo, hi in data["error_spans"]),
        superseded_chunk_ids=tuple(data["superseded_chunk_ids"]),
        answer_suspect=bool(data.get("answer_suspect", False)),
    )
