"""The verification stage with the warehouse's memory: carry over what did not change, verify
the rest, and label the claims a changed document superseded.

Every verdict row records its content key (``verification/reuse.py``) and the vault state its
evidence came from. Before verifying, the keys of this audit's answers are looked up among all
stored verdicts; answers whose every claim is found keep those verdicts (recorded as carried
over, from the audit that computed them). Only the others reach the verifier, and those that
the current vault contradicts are checked against their previous verdict for staleness.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from audit_pipeline.claims.audit_claims import AuditClaim
from audit_pipeline.evidence.passages import EvidencePassage
from audit_pipeline.verification.audit_verdicts import verify_claims
from audit_pipeline.verification.reuse import StoredVerdict, plan_reuse, verdict_keys
from audit_pipeline.verification.staleness import ClaimKey, PriorVerdict, mark_stale
from audit_pipeline.verification.verdict import Verdict, Verifier
from audit_pipeline.warehouse.store import Warehouse, or_none
from audit_pipeline.warehouse.table_rows import VerdictRow


@dataclass(frozen=True)
class Provenance:
    """Where a verdict row comes from: its key, the vault state of its evidence and, when it
    was carried over, the audit that computed it."""

    verdict_key: str
    vault_state: str | None
    carried_from: str | None = None


@dataclass(frozen=True)
class Verification:
    """The verdicts of one audit's claims, in claim order, with their provenance."""

    verdicts: list[Verdict]
    provenance: dict[str, Provenance]
    verified: int  # claims sent to the verifier in this run
    carried: int

    @property
    def stale(self) -> int:
        return sum(str(v.label) == "stale" for v in self.verdicts)


def stored_verdicts(store: Warehouse, keys: Collection[str]) -> dict[str, StoredVerdict]:
    """The most recent verdict stored under each of ``keys``."""
    if not keys:
        return {}
    frame = store.query(
        "SELECT v.* FROM verdicts v JOIN audits a USING (audit_id) "
        "WHERE v.verdict_key IN (SELECT unnest(?::VARCHAR[])) "
        "QUALIFY row_number() OVER (PARTITION BY v.verdict_key ORDER BY a.started_at DESC) = 1",
        [list(keys)],
    )
    found: dict[str, StoredVerdict] = {}
    for record in frame.to_dict("records"):
        row = VerdictRow.model_validate(record)
        if row.verdict_key is not None:
            origin = row.carried_from or row.audit_id
            found[row.verdict_key] = StoredVerdict(row.verdict(), origin, row.vault_state)
    return found


def prior_verdicts(store: Warehouse, target: str, vault_state: str) -> dict[ClaimKey, PriorVerdict]:
    """Per (prompt, turn, claim text): the target's latest verdict against another vault state."""
    frame = store.query(
        "SELECT c.prompt_id, c.turn, c.text, v.label, v.supporting_chunk_ids, v.vault_state "
        "FROM verdicts v JOIN claims c ON c.audit_id = v.audit_id AND c.claim_id = v.claim_id "
        "JOIN audits a ON a.audit_id = v.audit_id "
        "WHERE a.target = ? AND v.vault_state IS NOT NULL AND v.vault_state <> ? "
        "QUALIFY row_number() OVER ("
        "PARTITION BY c.prompt_id, c.turn, c.text ORDER BY a.started_at DESC) = 1",
        [target, vault_state],
    )
    prior: dict[ClaimKey, PriorVerdict] = {}
    for row in frame.itertuples(index=False):
        supporting = or_none(row.supporting_chunk_ids)  # an array, or None
        prior[(row.prompt_id, int(row.turn), row.text)] = PriorVerdict(
            row.label, tuple(supporting) if supporting is not None else (), row.vault_state
        )
    return prior


def record_chunk_history(store: Warehouse) -> None:
    """Add the current vault chunks to ``vault_chunk_history`` (once per chunk id).

    Done by every verification, so each chunk any verdict could rest on is kept: when its
    document changes, a stale claim can still show what the vault said.
    """
    store.execute(
        "INSERT INTO vault_chunk_history "
        "SELECT chunk_id, doc_id, section, text, doc_hash, now() FROM vault_chunks "
        "WHERE chunk_id NOT IN (SELECT chunk_id FROM vault_chunk_history)"
    )


def _chunk_ids(store: Warehouse, table: str) -> set[str]:
    return set(store.query(f"SELECT chunk_id FROM {table}")["chunk_id"])


def verify_audit(
    store: Warehouse,
    *,
    target: str,
    claims: Sequence[AuditClaim],
    evidence: Mapping[str, list[EvidencePassage]],
    verifier: Verifier,
    verifier_id: str,
    vault_state: str | None,
) -> Verification:
    """One verdict per claim: carried over where nothing changed, verified otherwise."""
    record_chunk_history(store)
    keys = verdict_keys(claims, evidence, verifier_id)
    plan = plan_reuse(claims, keys, stored_verdicts(store, set(keys.values())))
    fresh = verify_claims(plan.to_verify, dict(evidence), verifier)
    if vault_state is not None and plan.to_verify:
        fresh = mark_stale(
            plan.to_verify,
            fresh,
            prior_verdicts(store, target, vault_state),
            current_chunks=_chunk_ids(store, "vault_chunks"),
            vault_chunks_ever=_chunk_ids(store, "vault_chunk_history"),
        )
    computed = dict(zip((c.claim_id for c in plan.to_verify), fresh, strict=True))
    verdicts: list[Verdict] = []
    provenance: dict[str, Provenance] = {}
    for claim in claims:
        key = keys[claim.claim_id]
        stored = plan.carried.get(claim.claim_id)
        if stored is not None:
            verdicts.append(stored.verdict)
            provenance[claim.claim_id] = Provenance(key, stored.vault_state, stored.audit_id)
        else:
            verdicts.append(computed[claim.claim_id])
            provenance[claim.claim_id] = Provenance(key, vault_state)
    return Verification(verdicts, provenance, len(plan.to_verify), len(plan.carried))
