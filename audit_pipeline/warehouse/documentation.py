"""What analysts read about each table, view and key column (stored as DuckDB comments).

``SELECT table_name, comment FROM duckdb_tables()`` and ``duckdb_columns()`` / ``duckdb_views()``
show these texts from any SQL client. Migration 5 wrote them; a later change of wording goes in
a new migration that applies ``comment_statements`` again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

DOCUMENTATION: Mapping[str, str] = {
    "TABLE audits": "One row per audit: target, suite, when, and the deploy/warn/block "
    "decision with its risk.",
    "COLUMN audits.audit_id": "UTC start time, target and Dagster run id; every result row "
    "carries it.",
    "COLUMN audits.status": "running while in progress (or killed; resume with --resume), "
    "finished once risk_scores ran.",
    "COLUMN audits.vault_hash": "Hash of the vault state (paths and content hashes) the audit "
    "was verified against.",
    "COLUMN audits.suite_hash": "Content hash of the prompt suite version (suite_prompts).",
    "COLUMN audits.decision": "deploy, warn or block from the audit risk and the scoring "
    "thresholds; warn when no claim was verifiable.",
    "COLUMN audits.risk": "(w_u*unsupported + w_c*contradicted + w_w*weakly_supported) / "
    "verifiable claims; NULL when nothing was verifiable.",
    "TABLE vault_documents": "Current vault state: one row per readable document.",
    "TABLE vault_skipped_files": "Vault files left out at the last scan, with the reason.",
    "TABLE vault_chunks": "Heading-aware chunks of the current vault; text is the document "
    "text[start_char:end_char]. Vectors live in LanceDB.",
    "TABLE suite_prompts": "Every version of every prompt suite, one row per turn, keyed by "
    "suite_hash.",
    "TABLE responses": "One row per suite turn sent to a target in an audit, failures "
    "included (error set).",
    "COLUMN responses.citations": "JSON list of parsed citations: label, file, section, "
    "start, end.",
    "COLUMN responses.context": "Passages the bot reported using (RAG logs); evidence comes "
    "from them when present.",
    "COLUMN responses.from_cache": "true when the answer came from the response cache.",
    "TABLE claims": "Checkable claims of each response; text is response[start_char:end_char].",
    "TABLE evidence": "Top-k evidence passages per claim with vector, BM25 and fused (RRF) scores.",
    "COLUMN evidence.source": "vault (hybrid search of the vault index) or logged_context "
    "(the context the target logged).",
    "COLUMN evidence.fallback_mode": "true when retrieved BM25-only because the embedding "
    "model was unavailable (circuit breaker open).",
    "TABLE verdicts": "One verdict per claim: label, probability of being supported, "
    "justification, provenance.",
    "COLUMN verdicts.label": "supported, weakly_supported, unsupported, contradicted or "
    "unverifiable.",
    "COLUMN verdicts.probability": (
        "Probability that the claim is supported by its evidence, on its label's side of 0.5"
        " (supported from 0.75)."
    ),
    "COLUMN verdicts.decided_by": (
        "What decided the label: specifics, polarity, direction, modality, agent, condition, "
        "scope, rewrite or entailment (checks of the local verifier),"
        " model (its learned reading), judge (LLM judge), reader (a downloaded model), glossary."
    ),
    "TABLE assertion_results": "Rule assertions per turn: behavior, required_signals, "
    "must_not_appear, citations, citation_source, no_leak, no_agreement.",
    "TABLE risk_scores": "Risk and rates per response, per category and per audit (scope).",
    "TABLE service_stats": "Calls each stage made to model services, with failures, "
    "fallbacks and the circuit-breaker state.",
    "VIEW v_audit_summary": "One row per audit: decision, risk, prompts passed, claim counts "
    "and rates.",
    "VIEW v_category_scores": "Per audit and category: prompts failed, risk, hallucination "
    "rate, citation accuracy.",
    "VIEW v_failed_assertions": "Every failed assertion with the prompt and response it judged.",
    "VIEW v_claim_verdicts": "Every claim with its verdict and its best (rank 1) evidence.",
    "VIEW v_trend": "Per target and week: audits, mean and max risk, hallucination and pass "
    "rates, last decision.",
}


# Migration 6 (judge cost accounting, error spans); a separate mapping because migration 5
# applies the one above, and on a fresh warehouse these columns do not exist yet when it runs.
JUDGE_USAGE_DOCUMENTATION: Mapping[str, str] = {
    "COLUMN verdicts.judge_calls": "LLM-judge calls made for this claim (a repair is a second "
    "call); 0 when decided locally. NULL on rows written before migration 6.",
    "COLUMN verdicts.prompt_tokens": "Prompt tokens of those judge calls; NULL when a provider "
    "did not report them.",
    "COLUMN verdicts.completion_tokens": "Completion tokens of those judge calls; NULL when a "
    "provider did not report them.",
    "COLUMN verdicts.cost_usd": "Price of those judge calls in USD from litellm's price list; "
    "NULL when litellm has no price for the model (self-hosted).",
    "COLUMN audits.judge_calls": "Sum of verdicts.judge_calls: with the claim count, what the "
    "cascade sent to the judge. NULL until verdicts are written.",
    "COLUMN audits.judge_prompt_tokens": "Sum of verdicts.prompt_tokens; NULL when any is NULL.",
    "COLUMN audits.judge_completion_tokens": "Sum of verdicts.completion_tokens; NULL when any "
    "is NULL.",
    "COLUMN audits.judge_cost_usd": "Sum of verdicts.cost_usd; NULL when any judge call could "
    "not be priced (a partial sum would understate the bill).",
    "COLUMN verdicts.error_spans": "JSON [[start, end], ...]: character ranges of the claim "
    "text (claim-relative, end exclusive) that the evidence does not back, e.g. a changed "
    "number; [] when none were found. NULL on rows written before migration 6.",
}


# Migration 7: per-answer risk, the incomplete decision, secret_echo.
SCORING_DOCUMENTATION: Mapping[str, str] = {
    "COLUMN audits.decision": "deploy, warn or block from the audit risk and the scoring "
    "thresholds; warn when no claim was verifiable; incomplete when more than "
    "scoring.incomplete_share of the claims could not be verified or of the turns got no "
    "answer (a block found in what was checked stands).",
    "COLUMN audits.risk": "Mean over the answers with a verifiable claim of each answer's "
    "(w_u*unsupported + w_c*contradicted + w_w*weakly_supported) / verifiable claims; NULL "
    "when nothing was verifiable. Before migration 7, pooled over all claims.",
    "TABLE assertion_results": "Rule assertions per turn: behavior, required_signals, "
    "must_not_appear, citations, citation_source, no_leak, no_agreement, and a failed "
    "secret_echo where the answer repeated a secret the audit sent (redacted before storage).",
}


# Migration 8: retrieval evaluations against the golden set.
RETRIEVAL_EVAL_DOCUMENTATION: Mapping[str, str] = {
    "TABLE retrieval_evals": "One row per retrieval evaluation and scope (overall, or one "
    "collection): precision@k, recall@k, MRR, abstention rate and p95 latency on the golden set.",
    "COLUMN retrieval_evals.config_hash": "Hash of the chunking, embedding, retrieval and "
    "collections settings evaluated.",
    "COLUMN retrieval_evals.golden_hash": "Hash of the golden queries (golden set plus suite "
    "prompts with expected_doc_ids); compare figures only within one golden_hash.",
    "COLUMN retrieval_evals.precision_at_k": "Mean over queries of (chunks from an expected "
    "document among the first k) / k; an empty slot counts as a miss, an abstention is 0.",
    "COLUMN retrieval_evals.hit_precision": "Mean over queries of the share of returned "
    "chunks (first k) from an expected document; 0 for an abstention.",
    "COLUMN retrieval_evals.recall_at_k": "Mean over queries of the share of expected "
    "documents that a returned chunk comes from.",
    "COLUMN retrieval_evals.abstention_rate": "Share of queries that returned no chunk "
    "(every hit below its collection's min_score).",
    "TABLE retrieval_eval_queries": "Each golden query of an evaluation with the documents "
    "it retrieved, in rank order.",
    "VIEW v_trend": "Per target and week: audits, mean and max risk, hallucination and pass "
    "rates, last decision, and the last overall retrieval evaluation of that week.",
    "COLUMN suite_prompts.must_not_assert": "Forbidden strings that fail only where the answer "
    "asserts them (a denial the vault supports is a note); NULL before migration 8.",
    "COLUMN suite_prompts.pinned_response": "The answer this turn is pinned to (regression "
    "pinning); NULL when not pinned.",
    "COLUMN suite_prompts.pinned_tolerance": "exact, normalized or semantic: how far the "
    "answer may drift from pinned_response.",
}


# Migration 9: the analyst view shows where inside a flagged claim the verifier points.
CLAIM_VIEW_DOCUMENTATION: Mapping[str, str] = {
    "VIEW v_claim_verdicts": "Every claim with its verdict, the error spans inside it (JSON "
    "[[start, end], ...] relative to the claim) and its best (rank 1) evidence.",
}


# Migration 22: the answer-level suspicion is a flag on the answer, no longer a claim label.
SUSPECT_DOCUMENTATION: Mapping[str, str] = {
    "COLUMN verdicts.answer_suspect": "True on the least supported claim of an answer the "
    "verifier's answer-level model reads as hallucinated while no claim's label shows it: the "
    "answer is flagged for review (the report marks it; a configured reader reads it), the claim "
    "keeps its own label. Before migration 22 such a claim was labelled unsupported.",
}


# Migration 12: PDF, HTML and DOCX vault files; what was indexed is kept with its page map.
VAULT_FORMATS_DOCUMENTATION: Mapping[str, str] = {
    "COLUMN vault_documents.source_format": "markdown, text, pdf, html or docx: how the file "
    "was read (pdf, html and docx are converted to Markdown-like text); NULL before migration "
    "12.",
    "COLUMN vault_documents.text": "The text that was chunked and indexed: the file itself for "
    "Markdown and text, the converted text for PDF, HTML and DOCX. vault_chunks.start_char and "
    "end_char, and every evidence offset, point into it. NULL before migration 12.",
    "COLUMN vault_documents.page_starts": "For a PDF, the offset in text where each page "
    "begins (page i + 1 starts at page_starts[i + 1], DuckDB lists being 1-based); NULL for "
    "documents without pages.",
    "COLUMN vault_chunks.first_page": "First PDF page the chunk's text comes from (1-based); "
    "NULL for documents without pages.",
    "COLUMN vault_chunks.last_page": "Last PDF page the chunk's text comes from; NULL for "
    "documents without pages. The section ends with (p.N) or (p.N-M) for such chunks.",
}


def comment_statements(documentation: Mapping[str, str]) -> Iterator[str]:
    for key, text in documentation.items():
        kind, name = key.split(" ", 1)
        quoted = text.replace("'", "''")
        yield f"COMMENT ON {kind} {name} IS '{quoted}'"
