"""Each answer's stored claims with their verdicts and supporting chunks, for the checks that
run after verification (Self-RAG validation, strict citations)."""

from __future__ import annotations

from collections import defaultdict

from audit_pipeline.records.stored_claims import StoredClaim
from audit_pipeline.warehouse.store import Warehouse, or_none

TurnKey = tuple[str, int]


def stored_claims(store: Warehouse, audit_id: str) -> dict[TurnKey, list[StoredClaim]]:
    """Each answer's claims with label and supporting chunks (their documents and text)."""
    claims = store.query(
        "SELECT c.prompt_id, c.turn, c.claim_id, c.start_char, c.end_char, v.label,"
        " v.supporting_chunk_ids FROM claims c LEFT JOIN verdicts v ON v.audit_id = c.audit_id"
        " AND v.claim_id = c.claim_id WHERE c.audit_id = ? ORDER BY c.start_char",
        [audit_id],
    )
    evidence = store.query(
        "SELECT claim_id, chunk_id, document, text FROM evidence WHERE audit_id = ?", [audit_id]
    )
    chunks: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)
    for row in evidence.itertuples(index=False):
        chunks[row.claim_id][row.chunk_id] = (row.document or "", row.text)
    out: dict[TurnKey, list[StoredClaim]] = defaultdict(list)
    for row in claims.itertuples(index=False):
        ids = or_none(row.supporting_chunk_ids)
        supporting = tuple(ids) if ids is not None else ()
        found = [chunks[row.claim_id][c] for c in supporting if c in chunks[row.claim_id]]
        out[(row.prompt_id, int(row.turn))].append(
            StoredClaim(
                int(row.start_char),
                int(row.end_char),
                or_none(row.label),
                supporting,
                frozenset(doc for doc, _ in found),
                tuple(text for _, text in found),
            )
        )
    return dict(out)
