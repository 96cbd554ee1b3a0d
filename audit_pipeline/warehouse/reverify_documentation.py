"""Column documentation of migration 13: carried-over verdicts, the vault state each verdict
was computed against, stale claims and the vault's chunk history."""

REVERIFY_DOCUMENTATION: dict[str, str] = {
    "COLUMN verdicts.label": "supported, weakly_supported, unsupported, contradicted, stale "
    "(contradicted by a changed document that supported it before) or unverifiable.",
    "COLUMN verdicts.verdict_key": "Content hash of the verifier (name, version, settings), "
    "the claim and every claim of its answer with their evidence sets: a later verification "
    "with the same key carries this verdict over instead of computing it again.",
    "COLUMN verdicts.vault_state": "Hash of the vault state the verdict's evidence was "
    "retrieved from (vault_documents.vault_hash); NULL on rows written before migration 13.",
    "COLUMN verdicts.carried_from": "The audit whose verification computed this verdict when "
    "it was carried over unchanged (its claim and evidence set, and those of its answer, were "
    "the same); NULL when computed in this audit's latest verification.",
    "COLUMN verdicts.superseded_chunk_ids": "For a stale claim: the chunks of an earlier "
    "vault state that supported it (texts in vault_chunk_history).",
    "COLUMN risk_scores.stale": "Claims labelled stale (a hallucination of its own kind).",
    "TABLE vault_chunk_history": "Every chunk the vault index ever held, with its text, "
    "kept when its document changes so a stale claim can show what the vault said before.",
    # Views replaced by migration 13 lose their comments: said again, with what they gained.
    "VIEW v_audit_summary": "One row per audit: decision, risk, prompts passed, claim counts "
    "(stale included) and rates.",
    "VIEW v_claim_verdicts": "Every claim with its verdict, the error spans inside it (JSON "
    "[[start, end], ...] relative to the claim), the vault state its evidence came from, the "
    "audit it was carried over from, and its best (rank 1) evidence.",
    "VIEW v_stale_claims": "Every stale claim with the evidence that contradicts it now and "
    "the superseded text that supported it before.",
}
