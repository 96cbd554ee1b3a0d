"""The verification stage with the warehouse's memory: carry over what did not change, verify
the rest, and label the claims a changed document superseded.

Every verdict row records its content key (``verification/reuse.py``) and the vault state its
evidence came from. Before verifying, the keys of this audit's answers are looked up among all
stored verdicts; answers whose every claim is found keep those verdicts (recorded as carried
over, from the audit that computed them). Only the others reach the verifier, and those that
the current vault contradicts are checked against their previous verdict for staleness.

The lookups (``plan_verification``), the verification (``verify_fresh``) and putting the two
together (``assemble_verification``) are separate steps, so a large audit can verify its answers
in batches, in other processes, that need no warehouse (``runs/detection_batches.py``, which
runs them for the verdicts asset with one batch or many). The warehouse only stores and loads
(``warehouse/verdict_history.py``); the decisions are made here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from audit_pipeline.records.claims import AuditClaim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdict_provenance import Provenance, StoredVerdict
from audit_pipeline.records.verdicts import Verdict
from audit_pipeline.verification.audit_verdicts import verify_claims
from audit_pipeline.verification.batch import History
from audit_pipeline.verification.reuse import plan_reuse, verdict_keys
from audit_pipeline.verification.staleness import claim_key
from audit_pipeline.verification.verdict import Verifier
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline.warehouse.verdict_history import chunk_ids, prior_verdicts, stored_verdicts


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


@dataclass(frozen=True)
class VerificationPlan:
    """An audit's claims before any is verified: each claim's verdict key, the stored
    verdicts carried over (by claim id), the claims left to verify (whole answers), and the
    history the staleness stage reads (None without a vault state or with nothing to verify;
    read from the warehouse once, so the verification can run where there is none)."""

    vault_state: str | None
    keys: dict[str, str]
    carried: dict[str, StoredVerdict]
    to_verify: list[AuditClaim]
    staleness: History | None


def plan_verification(
    store: Warehouse,
    *,
    target: str,
    claims: Sequence[AuditClaim],
    evidence: Mapping[str, list[EvidencePassage]],
    verifier_id: str,
    vault_state: str | None,
) -> VerificationPlan:
    """Look up what can be carried over and what staleness is judged against (reads only)."""
    keys = verdict_keys(claims, evidence, verifier_id)
    reuse = plan_reuse(claims, keys, stored_verdicts(store, set(keys.values())))
    staleness = None
    if vault_state is not None and reuse.to_verify:
        current = chunk_ids(store, "vault_chunks")
        # The history gains the current chunks when the verdicts are written; they count now.
        ever = chunk_ids(store, "vault_chunk_history") | current
        staleness = History(
            prior_verdicts(store, target, vault_state), frozenset(current), frozenset(ever)
        ).for_keys({claim_key(c) for c in reuse.to_verify})
    return VerificationPlan(vault_state, keys, reuse.carried, reuse.to_verify, staleness)


def verify_fresh(
    claims: Sequence[AuditClaim],
    evidence: Mapping[str, list[EvidencePassage]],
    verifier: Verifier,
    staleness: History | None,
) -> dict[str, Verdict]:
    """Verdicts of ``claims`` (whole answers of a plan's ``to_verify``) by claim id; with a
    staleness basis, the chain's history stages run (those the changed vault superseded are
    labelled stale). Touches no warehouse."""
    fresh = verify_claims(claims, dict(evidence), verifier, staleness)
    return dict(zip((c.claim_id for c in claims), fresh, strict=True))


def assemble_verification(
    plan: VerificationPlan, claims: Sequence[AuditClaim], fresh: Mapping[str, Verdict]
) -> Verification:
    """One verdict per claim, in claim order: the carried-over one, else the fresh one."""
    verdicts: list[Verdict] = []
    provenance: dict[str, Provenance] = {}
    for claim in claims:
        key = plan.keys[claim.claim_id]
        stored = plan.carried.get(claim.claim_id)
        if stored is not None:
            verdicts.append(stored.verdict)
            provenance[claim.claim_id] = Provenance(key, stored.vault_state, stored.audit_id)
        else:
            verdicts.append(fresh[claim.claim_id])
            provenance[claim.claim_id] = Provenance(key, plan.vault_state)
    return Verification(verdicts, provenance, len(plan.to_verify), len(plan.carried))
