"""Evidence that changed while the audit ran is flagged on the verdicts it touched.

An audit reads the vault once, at its start, and judges every claim against that index; a
policy owner who edits or deletes a document meanwhile leaves verdicts judged against text the
vault no longer holds, and nothing said so. So before the rule assertions run, every vault
document the audit's evidence came from is read again as the scan read it; one whose content
hash differs (edited) or that is gone (deleted) marks each verdict with evidence from it
(``verdicts.evidence_changed``), and the stage's metadata names the documents, which the CLI
reports. The verdicts themselves stand: they are what the audit found with what it read, and a
new audit judges against the new text.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from audit_pipeline.vault.documents import VaultDocument, VaultScan, read_document
from audit_pipeline.warehouse.store import Warehouse


@dataclass(frozen=True)
class EvidenceChanges:
    """The vault documents the audit's evidence came from that changed during it (document ->
    ``edited``, ``deleted`` or why it is unreadable now) and how many verdicts they touched."""

    documents: Mapping[str, str] = field(default_factory=dict)
    verdicts: int = 0

    def summary(self) -> str:
        """One line for the CLI and the run's log."""
        changed = ", ".join(f"{doc} ({how})" for doc, how in sorted(self.documents.items()))
        return (
            f"{len(self.documents)} vault document(s) changed while the audit ran: {changed}; "
            f"{self.verdicts} verdict(s) were judged against their earlier text "
            "(verdicts.evidence_changed); audit again to judge against the current vault"
        )


def changed_documents(scan: VaultScan, documents: list[str], max_bytes: int) -> dict[str, str]:
    """Which of ``documents`` (as the scan read them) differ on disk now, and how."""
    known = {document.doc_id: document.content_hash for document in scan.documents}
    changed: dict[str, str] = {}
    for doc_id in documents:
        if doc_id not in known:
            continue
        now = read_document(scan.root, doc_id, max_bytes)
        if not isinstance(now, VaultDocument):
            changed[doc_id] = now.reason
        elif now.content_hash != known[doc_id]:
            changed[doc_id] = "edited"
    return changed


def flag_changed_evidence(
    store: Warehouse, audit_id: str, scan: VaultScan, max_bytes: int
) -> EvidenceChanges:
    """Mark the audit's verdicts whose vault evidence changed since ``scan``; returns what."""
    used = store.query(
        "SELECT DISTINCT document FROM evidence WHERE audit_id = ? AND source = 'vault'"
        " AND document IS NOT NULL",
        [audit_id],
    )
    changed = changed_documents(scan, list(used["document"]), max_bytes)
    if not changed:
        return EvidenceChanges()
    marks = ", ".join("?" * len(changed))
    rows = store.query(
        "SELECT DISTINCT claim_id, document FROM evidence WHERE audit_id = ?"
        f" AND document IN ({marks})",
        [audit_id, *changed],
    )
    by_claim: dict[str, list[str]] = defaultdict(list)
    for row in rows.itertuples(index=False):
        by_claim[row.claim_id].append(f"{row.document} {changed[row.document]} during the audit")
    store.replace_many(
        [],
        [
            (
                "UPDATE verdicts SET evidence_changed = ? WHERE audit_id = ? AND claim_id = ?",
                ["; ".join(sorted(notes)), audit_id, claim_id],
            )
            for claim_id, notes in sorted(by_claim.items())
        ],
    )
    return EvidenceChanges(changed, len(by_claim))
