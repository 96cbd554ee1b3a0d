"""Evidence and verification of one audit in batches of prompts: plan, compute apart, write once.

Why batches: finding evidence (a vault search per claim) and verifying (the models, per answer)
are the expensive part of an audit, and no answer's result depends on another's. A large audit
can therefore split them into batches that run at the same time in other processes (Dagster's
multiprocess executor) or pods (``dagster-k8s``, ``dagster-celery``). DuckDB takes one writer,
so a batch neither reads nor writes the warehouse: one planning step reads what the batches
need and hands it to them, each batch returns its rows, and one step writes them, each table in
one transaction. With one batch the same functions run one after the other in one step.

A batch is a stable bucket of prompt ids (a hash, the same in every process and run), so all
claims of an answer stay together: the local verifier judges an answer's claims together, and
verdicts are carried over per answer.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit_pipeline.embedding import Embedder
from audit_pipeline.evidence.claim_evidence import gather_evidence
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.records.claims import AnsweredTurn, AuditClaim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.marks import MarkLookup, evidence_state
from audit_pipeline.records.verdicts import Verdict
from audit_pipeline.reliability.circuit_breaker import BreakerState
from audit_pipeline.runs.carry_over import (
    Verification,
    VerificationPlan,
    assemble_verification,
    plan_verification,
    verify_fresh,
)
from audit_pipeline.terminology.audit import (
    audit_evidence,
    glossary_lookups,
    plan_audit,
    prompts_of,
)
from audit_pipeline.terminology.checker import TerminologyChecker
from audit_pipeline.verification.batch import History
from audit_pipeline.verification.stages.base import Reads
from audit_pipeline.verification.staleness import claim_key
from audit_pipeline.verification.verdict import Verifier, chain_json
from audit_pipeline.warehouse.audit_tables import load_responses
from audit_pipeline.warehouse.mark_tables import live_marks
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline.warehouse.verdict_tables import (
    answered_turns,
    evidence_rows,
    load_claims,
    load_evidence,
    service_stats_write,
    write_verdicts,
)

Prompts = dict[tuple[str, int], str]  # (prompt id, turn) -> the prompt, for terminology checks


def prompt_batch(prompt_id: str, batches: int) -> int:
    """The batch of a prompt: a hash of its id, so every process and every run agree."""
    if batches < 1:
        raise ValueError(f"batches must be at least 1, got {batches}")
    digest = hashlib.sha256(prompt_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % batches


def _by_batch(claims: Iterable[AuditClaim], batches: int) -> dict[int, list[AuditClaim]]:
    """The non-empty batches of ``claims``, in batch order; claims keep their order."""
    split: dict[int, list[AuditClaim]] = {}
    for claim in claims:
        split.setdefault(prompt_batch(claim.prompt_id, batches), []).append(claim)
    return dict(sorted(split.items()))


# -- evidence ------------------------------------------------------------------------------


@dataclass(frozen=True)
class EvidenceWork:
    """One batch's share of the evidence stage: its claims, their answers and prompts."""

    batch: int
    claims: list[AuditClaim]
    turns: list[AnsweredTurn]
    prompts: Prompts


@dataclass(frozen=True)
class FoundEvidence:
    """One batch's evidence by claim id, and how its vault searches went (retriever stats)."""

    claims: int
    evidence: dict[str, list[EvidencePassage]]
    stats: dict[str, Any]


def plan_evidence(store: Warehouse, audit_id: str, batches: int) -> list[EvidenceWork]:
    """The audit's claims in their batches (empty ones left out; one empty batch when there is
    no claim at all, so the stage still records its service stats)."""
    with store.reading():
        claims = load_claims(store, audit_id)
        responses = load_responses(store, audit_id)
    turns = answered_turns(responses)
    prompts = prompts_of(responses)
    work = []
    for batch, members in _by_batch(claims, batches).items():
        keys = {(c.prompt_id, c.turn) for c in members}
        work.append(
            EvidenceWork(
                batch,
                members,
                [t for t in turns if (t.prompt_id, t.turn) in keys],
                {key: prompt for key, prompt in prompts.items() if key in keys},
            )
        )
    return work or [EvidenceWork(0, [], [], {})]


def find_evidence(
    work: EvidenceWork,
    retriever: HybridRetriever,
    embedder: Embedder,
    top_k: int,
    terminology: TerminologyChecker | None,
) -> FoundEvidence:
    """Top-k passages per claim of one batch; a definitional claim gets the glossary's
    definition instead when a glossary is configured. Reads no warehouse."""
    found = gather_evidence(work.claims, work.turns, retriever, embedder, top_k)
    if terminology is not None:  # definitions are checked against the glossary first
        found = audit_evidence(found, plan_audit(terminology, work.claims, work.prompts))
    return FoundEvidence(len(work.claims), found, retriever.stats())


@dataclass(frozen=True)
class EvidenceWritten:
    """What the evidence stage wrote, for the asset's metadata."""

    claims: int
    rows: int
    sources: Counter[str]
    fallback_mode: int


_STATE_SEVERITY = (BreakerState.OPEN, BreakerState.HALF_OPEN, BreakerState.CLOSED)


def _worst_state(states: Iterable[str | None]) -> str | None:
    """The most degraded breaker state of the batches (each had its own breaker)."""
    seen = {str(s) for s in states if s is not None}
    return next((str(s) for s in _STATE_SEVERITY if str(s) in seen), None)


def write_found_evidence(
    store: Warehouse, audit_id: str, found: Sequence[FoundEvidence]
) -> EvidenceWritten:
    """The evidence rows of every batch and the stage's embedder stats (summed over the
    batches), replacing the audit's earlier ones in one transaction."""
    evidence = {claim: passages for part in found for claim, passages in part.evidence.items()}
    stats = service_stats_write(
        audit_id,
        "evidence",
        "embedder",
        requests=sum(p.stats["embedding_requests"] for p in found),
        failures=sum(p.stats["embedding_failures"] for p in found),
        fallbacks=sum(p.stats["embedding_fallbacks"] for p in found),
        state=_worst_state(p.stats.get("breaker_state") for p in found),
    )
    rows = evidence_rows(audit_id, evidence)
    store.replace_many([("evidence", rows, {"audit_id": audit_id}), stats])
    passages = [p for ps in evidence.values() for p in ps]
    return EvidenceWritten(
        claims=sum(p.claims for p in found),
        rows=len(rows),
        sources=Counter(p.source for p in passages),
        fallback_mode=sum(p.fallback_mode for p in passages),
    )


# -- verification --------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedVerification:
    """The verdicts stage of one audit before anything is verified: every claim (in order),
    the carry-over plan, the prompts (terminology checks) and the verifier it was planned for
    (``verifier``: name and version; ``verifier_quality``: the figures measured for its
    chain; ``verifier_chain``: the chain's description, JSON, as the audit row keeps it)."""

    claims: list[AuditClaim]
    prompts: Prompts
    plan: VerificationPlan
    verifier: str
    verifier_quality: str
    verifier_chain: str
    # claim id -> the digest of its evidence set, what an analyst's mark was given against
    evidence_states: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class VerificationWork:
    """One batch of claims to verify (whole answers), with their evidence and staleness basis."""

    batch: int
    claims: list[AuditClaim]
    evidence: dict[str, list[EvidencePassage]]
    staleness: History | None


def plan_verdicts(
    store: Warehouse,
    audit_id: str,
    *,
    target: str,
    verifier: Verifier,
    verifier_id: str,
    vault_state: str | None,
    batches: int,
) -> tuple[PlannedVerification, list[VerificationWork]]:
    """Read the audit's claims and evidence, decide what is carried over, and split the claims
    left to verify into batches (none when everything is carried over)."""
    with store.reading():
        claims = load_claims(store, audit_id)
        evidence = load_evidence(store, audit_id)
        plan = plan_verification(
            store,
            target=target,
            claims=claims,
            evidence=evidence,
            verifier_id=verifier_id,
            vault_state=vault_state,
        )
        responses = load_responses(store, audit_id)
    planned = PlannedVerification(
        claims,
        prompts_of(responses),
        plan,
        f"{verifier.name} {verifier.version}",
        verifier.quality,
        chain_json(verifier),
        {c.claim_id: evidence_state(evidence.get(c.claim_id, [])) for c in claims},
    )
    work = [
        VerificationWork(
            batch,
            members,
            {c.claim_id: evidence[c.claim_id] for c in members if c.claim_id in evidence},
            (
                plan.staleness.for_keys({claim_key(c) for c in members})
                if plan.staleness is not None
                else None
            ),
        )
        for batch, members in _by_batch(plan.to_verify, batches).items()
    ]
    return planned, work


def verify_work(work: VerificationWork, verifier: Verifier) -> dict[str, Verdict]:
    """Fresh verdicts of one batch, by claim id. Reads no warehouse."""
    return verify_fresh(work.claims, work.evidence, verifier, work.staleness)


def write_planned_verdicts(
    store: Warehouse,
    audit_id: str,
    planned: PlannedVerification,
    fresh: Sequence[Mapping[str, Verdict]],
    terminology: TerminologyChecker | None,
    verifier: Verifier,
) -> Verification:
    """Every claim's verdict (carried over or fresh from a batch), settled by the chain's
    glossary stages when a glossary is configured and by its marks stage, written with the
    audit's judge totals and the vault's chunk history in one transaction."""
    merged = {claim: verdict for part in fresh for claim, verdict in part.items()}
    run = assemble_verification(planned.plan, planned.claims, merged)
    verdicts = run.verdicts
    texts = [c.claim for c in planned.claims]
    if terminology is not None:
        checks = plan_audit(terminology, planned.claims, planned.prompts)
        verdicts = verifier.settle(texts, verdicts, {Reads.GLOSSARY: glossary_lookups(checks)})
    # Analysts' marks last, over every verdict (carried over or not): the verifier's own
    # verdict is kept beside each one a mark changed, for carry-over to reuse.
    lookups = mark_lookups(store, audit_id, planned.claims, planned.evidence_states)
    marked = verifier.settle(texts, verdicts, {Reads.MARKS: lookups})
    unmarked = {
        claim.claim_id: own
        for claim, own, final in zip(planned.claims, verdicts, marked, strict=True)
        if own != final
    }
    write_verdicts(
        store,
        audit_id,
        planned.claims,
        marked,
        run.provenance,
        keep_chunk_history=True,
        verifier_chain=planned.verifier_chain,
        unmarked=unmarked,
    )
    return Verification(marked, run.provenance, run.verified, run.carried)


def mark_lookups(
    store: Warehouse,
    audit_id: str,
    claims: Sequence[AuditClaim],
    states: Mapping[str, str],
) -> dict[int, MarkLookup]:
    """By claim index: the live mark on each claim's key, and whether the claim's evidence
    set is still the one it was marked against."""
    live = live_marks(store, audit_id)
    return {
        index: MarkLookup(
            live[c.claim_id], live[c.claim_id].evidence_state == states.get(c.claim_id)
        )
        for index, c in enumerate(claims)
        if c.claim_id in live
    }
