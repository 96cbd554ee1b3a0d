"""The verdict history an audit reads before verifying: stored verdicts by key, a target's
previous verdicts against other vault states, and which chunks the vault holds and ever held.

Storage only: what is carried over and what turns stale is decided in ``runs/carry_over.py``.
"""

from __future__ import annotations

from collections.abc import Collection

from audit_pipeline.records.verdict_provenance import ClaimKey, PriorVerdict, StoredVerdict
from audit_pipeline.warehouse.store import Warehouse, or_none
from audit_pipeline.warehouse.table_rows import VerdictRow


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
            # The verifier's own verdict, not one an analyst's mark set: the marks of the day
            # are applied again after carry-over (a mark can be superseded or retired since).
            found[row.verdict_key] = StoredVerdict(row.unmarked_verdict(), origin, row.vault_state)
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


# Adds the current vault chunks to ``vault_chunk_history`` (once per chunk id). Run with every
# audit's verdicts, in their transaction (``write_verdicts(keep_chunk_history=True)``), so each
# chunk any verdict could rest on is kept: when its document changes, a stale claim can still
# show what the vault said.
CHUNK_HISTORY_SQL = (
    "INSERT INTO vault_chunk_history "
    "SELECT chunk_id, doc_id, section, text, doc_hash, now() FROM vault_chunks "
    "WHERE chunk_id NOT IN (SELECT chunk_id FROM vault_chunk_history)"
)


def chunk_ids(store: Warehouse, table: str) -> set[str]:
    return set(store.query(f"SELECT chunk_id FROM {table}")["chunk_id"])
