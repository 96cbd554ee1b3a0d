"""The warehouse schema as an ordered list of migrations.

Analysts keep months of audit history in this file, so the schema only ever moves forward:
a new table or column is a new migration appended here, never an edit of an applied one and
never a drop-and-create. ``schema_migrations`` records what has been applied.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit_pipeline.warehouse.documentation import (
    CLAIM_VIEW_DOCUMENTATION,
    DOCUMENTATION,
    JUDGE_USAGE_DOCUMENTATION,
    RETRIEVAL_EVAL_DOCUMENTATION,
    SCORING_DOCUMENTATION,
    SUSPECT_DOCUMENTATION,
    VAULT_FORMATS_DOCUMENTATION,
    comment_statements,
)
from audit_pipeline.warehouse.failure_documentation import FAILURE_DOCUMENTATION
from audit_pipeline.warehouse.marks_documentation import (
    MARK_FEATURES_TABLE,
    MARKS_DOCUMENTATION,
    MARKS_TABLE,
    MARKS_VIEW,
    QUALITY_VIEW,
)
from audit_pipeline.warehouse.release_documentation import RELEASE_DOCUMENTATION
from audit_pipeline.warehouse.reverify_documentation import REVERIFY_DOCUMENTATION
from audit_pipeline.warehouse.scope_migration import SCOPE_STATEMENTS
from audit_pipeline.warehouse.validation_documentation import VALIDATION_DOCUMENTATION


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "audits, vault documents and chunk metadata",
        (
            """
            CREATE TABLE audits (
                audit_id      VARCHAR PRIMARY KEY,
                started_at    TIMESTAMPTZ NOT NULL,
                finished_at   TIMESTAMPTZ,
                status        VARCHAR NOT NULL,
                target        VARCHAR,
                suite         VARCHAR,
                suite_hash    VARCHAR,
                vault_hash    VARCHAR,
                config_hash   VARCHAR,
                dagster_run_id VARCHAR,
                decision      VARCHAR,
                risk          DOUBLE
            )
            """,
            """
            CREATE TABLE vault_documents (
                doc_id        VARCHAR PRIMARY KEY,
                title         VARCHAR NOT NULL,
                content_hash  VARCHAR NOT NULL,
                size_bytes    BIGINT NOT NULL,
                modified_at   TIMESTAMPTZ NOT NULL,
                vault_hash    VARCHAR NOT NULL,
                indexed_at    TIMESTAMPTZ NOT NULL
            )
            """,
            """
            CREATE TABLE vault_skipped_files (
                path          VARCHAR NOT NULL,
                reason        VARCHAR NOT NULL,
                vault_hash    VARCHAR NOT NULL,
                seen_at       TIMESTAMPTZ NOT NULL
            )
            """,
            """
            CREATE TABLE vault_chunks (
                chunk_id      VARCHAR PRIMARY KEY,
                doc_id        VARCHAR NOT NULL,
                section       VARCHAR NOT NULL,
                chunk_index   INTEGER NOT NULL,
                start_char    BIGINT NOT NULL,
                end_char      BIGINT NOT NULL,
                word_count    INTEGER NOT NULL,
                text          VARCHAR NOT NULL,
                doc_hash      VARCHAR NOT NULL
            )
            """,
        ),
    ),
    Migration(
        2,
        "prompt suites and target responses",
        (
            """
            CREATE TABLE suite_prompts (
                suite            VARCHAR NOT NULL,
                suite_hash       VARCHAR NOT NULL,
                prompt_id        VARCHAR NOT NULL,
                prompt_hash      VARCHAR NOT NULL,
                category         VARCHAR NOT NULL,
                turn             INTEGER NOT NULL,
                prompt           VARCHAR NOT NULL,
                expected_behavior VARCHAR,
                required_signals VARCHAR[],
                must_not_appear  VARCHAR[],
                required_citation_source VARCHAR,
                citation_must_contain VARCHAR[],
                no_agreement     BOOLEAN NOT NULL DEFAULT false,
                expected_doc_ids VARCHAR[],
                notes            VARCHAR,
                source_path      VARCHAR NOT NULL,
                loaded_at        TIMESTAMPTZ NOT NULL
            )
            """,
            """
            CREATE TABLE responses (
                audit_id         VARCHAR NOT NULL,
                prompt_id        VARCHAR NOT NULL,
                turn             INTEGER NOT NULL,
                target           VARCHAR NOT NULL,
                model            VARCHAR,
                prompt           VARCHAR NOT NULL,
                prompt_hash      VARCHAR NOT NULL,
                response         VARCHAR,
                citations        JSON,
                context          VARCHAR[],
                latency_ms       DOUBLE,
                prompt_tokens    INTEGER,
                completion_tokens INTEGER,
                cost             DOUBLE,
                error            VARCHAR,
                attempts         INTEGER NOT NULL,
                from_cache       BOOLEAN NOT NULL,
                started_at       TIMESTAMPTZ NOT NULL,
                finished_at      TIMESTAMPTZ NOT NULL,
                PRIMARY KEY (audit_id, prompt_id, turn)
            )
            """,
        ),
    ),
    Migration(
        3,
        "claims, evidence, verdicts, assertion results and risk scores",
        (
            """
            CREATE TABLE claims (
                audit_id      VARCHAR NOT NULL,
                prompt_id     VARCHAR NOT NULL,
                turn          INTEGER NOT NULL,
                claim_id      VARCHAR NOT NULL,
                text          VARCHAR NOT NULL,
                start_char    INTEGER NOT NULL,
                end_char      INTEGER NOT NULL,
                kind          VARCHAR NOT NULL,
                extractor     VARCHAR NOT NULL,
                PRIMARY KEY (audit_id, claim_id)
            )
            """,
            """
            CREATE TABLE evidence (
                audit_id      VARCHAR NOT NULL,
                claim_id      VARCHAR NOT NULL,
                rank          INTEGER NOT NULL,
                chunk_id      VARCHAR NOT NULL,
                document      VARCHAR,
                section       VARCHAR,
                text          VARCHAR NOT NULL,
                vector_score  DOUBLE,
                bm25_score    DOUBLE,
                fused_score   DOUBLE NOT NULL,
                source        VARCHAR NOT NULL,
                fallback_mode BOOLEAN NOT NULL DEFAULT false,
                PRIMARY KEY (audit_id, claim_id, rank)
            )
            """,
            """
            CREATE TABLE verdicts (
                audit_id      VARCHAR NOT NULL,
                claim_id      VARCHAR NOT NULL,
                prompt_id     VARCHAR NOT NULL,
                turn          INTEGER NOT NULL,
                label         VARCHAR NOT NULL,
                probability   DOUBLE,
                justification VARCHAR,
                supporting_chunk_ids VARCHAR[],
                verifier      VARCHAR NOT NULL,
                verifier_version VARCHAR NOT NULL,
                decided_by    VARCHAR NOT NULL,
                PRIMARY KEY (audit_id, claim_id)
            )
            """,
            """
            CREATE TABLE assertion_results (
                audit_id      VARCHAR NOT NULL,
                prompt_id     VARCHAR NOT NULL,
                turn          INTEGER NOT NULL,
                category      VARCHAR NOT NULL,
                assertion     VARCHAR NOT NULL,
                passed        BOOLEAN NOT NULL,
                detail        VARCHAR,
                expected_behavior VARCHAR,          -- on 'behavior' rows
                fell_back     BOOLEAN NOT NULL DEFAULT false,   -- on 'behavior' rows
                citation_errors INTEGER NOT NULL DEFAULT 0,     -- on 'citations' rows
                PRIMARY KEY (audit_id, prompt_id, turn, assertion)
            )
            """,
            """
            CREATE TABLE risk_scores (
                audit_id      VARCHAR NOT NULL,
                scope         VARCHAR NOT NULL,   -- 'response', 'category' or 'audit'
                prompt_id     VARCHAR,            -- set for scope 'response'
                turn          INTEGER,            -- set for scope 'response'
                category      VARCHAR,            -- set for 'response' and 'category'
                claims        INTEGER NOT NULL,
                supported     INTEGER NOT NULL,
                weakly_supported INTEGER NOT NULL,
                unsupported   INTEGER NOT NULL,
                contradicted  INTEGER NOT NULL,
                unverifiable  INTEGER NOT NULL,
                risk          DOUBLE,             -- null when no claim was verifiable
                hallucination_rate DOUBLE,
                citation_accuracy  DOUBLE,
                fallback_rate DOUBLE,
                refusal_rate  DOUBLE,
                decision      VARCHAR
            )
            """,
        ),
    ),
    Migration(
        4,
        "analyst views",
        (
            """
            CREATE VIEW v_audit_summary AS
            WITH prompts AS (
                SELECT audit_id, prompt_id, bool_and(passed) AS passed,
                       count(*) AS assertions, count(*) FILTER (WHERE NOT passed) AS failed
                FROM assertion_results GROUP BY audit_id, prompt_id
            ), per_audit AS (
                SELECT audit_id, count(*) AS prompts,
                       count(*) FILTER (WHERE passed) AS prompts_passed,
                       sum(assertions) AS assertions, sum(failed) AS assertions_failed
                FROM prompts GROUP BY audit_id
            )
            SELECT a.audit_id, a.target, a.suite, a.started_at, a.finished_at, a.status,
                   a.decision, a.risk, p.prompts, p.prompts_passed,
                   p.prompts_passed / nullif(p.prompts, 0) AS pass_rate,
                   p.assertions, p.assertions_failed, r.claims, r.supported,
                   r.weakly_supported, r.unsupported, r.contradicted, r.unverifiable,
                   r.hallucination_rate, r.citation_accuracy, r.fallback_rate, r.refusal_rate
            FROM audits a
            LEFT JOIN per_audit p USING (audit_id)
            LEFT JOIN risk_scores r ON r.audit_id = a.audit_id AND r.scope = 'audit'
            """,
            """
            CREATE VIEW v_category_scores AS
            WITH prompts AS (
                SELECT audit_id, category, prompt_id, bool_and(passed) AS passed
                FROM assertion_results GROUP BY audit_id, category, prompt_id
            ), per_category AS (
                SELECT audit_id, category, count(*) AS prompts,
                       count(*) FILTER (WHERE NOT passed) AS prompts_failed
                FROM prompts GROUP BY audit_id, category
            )
            SELECT a.audit_id, a.target, a.started_at, c.category, c.prompts, c.prompts_failed,
                   r.risk, r.claims, r.unsupported, r.contradicted, r.weakly_supported,
                   r.hallucination_rate, r.citation_accuracy, r.fallback_rate, r.refusal_rate
            FROM per_category c
            JOIN audits a USING (audit_id)
            LEFT JOIN risk_scores r ON r.audit_id = c.audit_id AND r.scope = 'category'
                 AND r.category = c.category
            """,
            """
            CREATE VIEW v_failed_assertions AS
            SELECT a.audit_id, a.target, a.started_at, f.prompt_id, f.turn, f.category,
                   f.assertion, f.detail, r.prompt, r.response, r.error
            FROM assertion_results f
            JOIN audits a USING (audit_id)
            LEFT JOIN responses r ON r.audit_id = f.audit_id AND r.prompt_id = f.prompt_id
                 AND r.turn = f.turn
            WHERE NOT f.passed
            """,
            """
            CREATE VIEW v_claim_verdicts AS
            SELECT a.audit_id, a.target, a.started_at, c.prompt_id, c.turn, c.claim_id,
                   c.text AS claim, c.start_char, c.end_char, v.label, v.probability,
                   v.justification, v.verifier, v.verifier_version, v.decided_by,
                   e.document AS evidence_document, e.section AS evidence_section,
                   e.text AS evidence_text, e.vector_score, e.bm25_score, e.fused_score,
                   e.source AS evidence_source, e.fallback_mode
            FROM claims c
            JOIN audits a USING (audit_id)
            LEFT JOIN verdicts v ON v.audit_id = c.audit_id AND v.claim_id = c.claim_id
            LEFT JOIN evidence e ON e.audit_id = c.audit_id AND e.claim_id = c.claim_id
                 AND e.rank = 1
            """,
            """
            CREATE VIEW v_trend AS
            SELECT target, date_trunc('week', started_at) AS week, count(*) AS audits,
                   avg(risk) AS mean_risk, max(risk) AS max_risk,
                   avg(hallucination_rate) AS mean_hallucination_rate,
                   avg(pass_rate) AS mean_pass_rate,
                   arg_max(decision, started_at) AS last_decision,
                   max(started_at) AS last_audit_at
            FROM v_audit_summary
            WHERE status = 'finished'
            GROUP BY target, date_trunc('week', started_at)
            """,
        ),
    ),
    Migration(
        5,
        "service statistics; table, view and column documentation",
        (
            """
            CREATE TABLE service_stats (
                audit_id      VARCHAR NOT NULL,
                stage         VARCHAR NOT NULL,
                service       VARCHAR NOT NULL,   -- embedder, judge, extractor
                requests      INTEGER NOT NULL,
                failures      INTEGER NOT NULL,
                fallbacks     INTEGER NOT NULL,
                state         VARCHAR,            -- circuit-breaker state at the end
                PRIMARY KEY (audit_id, stage, service)
            )
            """,
            *comment_statements(DOCUMENTATION),
        ),
    ),
    Migration(
        6,
        "LLM-judge tokens and cost per verdict, summed per audit; verdict error spans",
        (
            # No defaults: rows written before this migration did not record their judge
            # calls, and NULL says "unknown" where 0 would claim "nothing spent".
            "ALTER TABLE verdicts ADD COLUMN judge_calls INTEGER",
            "ALTER TABLE verdicts ADD COLUMN prompt_tokens BIGINT",
            "ALTER TABLE verdicts ADD COLUMN completion_tokens BIGINT",
            "ALTER TABLE verdicts ADD COLUMN cost_usd DOUBLE",
            "ALTER TABLE audits ADD COLUMN judge_calls INTEGER",
            "ALTER TABLE audits ADD COLUMN judge_prompt_tokens BIGINT",
            "ALTER TABLE audits ADD COLUMN judge_completion_tokens BIGINT",
            "ALTER TABLE audits ADD COLUMN judge_cost_usd DOUBLE",
            # JSON rather than INTEGER[][] so any SQL client and pandas read it as plain text;
            # NULL on earlier rows, which never looked for error spans.
            "ALTER TABLE verdicts ADD COLUMN error_spans JSON",
            *comment_statements(JUDGE_USAGE_DOCUMENTATION),
        ),
    ),
    Migration(
        7,
        "documentation: risk is the mean over answers; the incomplete decision; secret_echo",
        tuple(comment_statements(SCORING_DOCUMENTATION)),
    ),
    Migration(
        8,
        "evaluation harness: retrieval evaluations on the golden set (v_trend shows the "
        "week's last one); must_not_assert and pinned responses in suites",
        (
            "ALTER TABLE suite_prompts ADD COLUMN must_not_assert VARCHAR[]",
            "ALTER TABLE suite_prompts ADD COLUMN pinned_response VARCHAR",
            "ALTER TABLE suite_prompts ADD COLUMN pinned_tolerance VARCHAR",
            """
            CREATE TABLE retrieval_evals (
                eval_id        VARCHAR NOT NULL,
                evaluated_at   TIMESTAMPTZ NOT NULL,
                config_hash    VARCHAR NOT NULL,
                golden_hash    VARCHAR NOT NULL,
                vault_hash     VARCHAR,
                k              INTEGER NOT NULL,   -- figures are over the first k hits
                top_k          INTEGER NOT NULL,   -- hits asked of the retriever
                dagster_run_id VARCHAR,
                scope          VARCHAR NOT NULL,   -- 'overall' or 'collection'
                collection     VARCHAR,            -- set for scope 'collection'
                queries        INTEGER NOT NULL,
                precision_at_k DOUBLE NOT NULL,
                hit_precision  DOUBLE NOT NULL,
                recall_at_k    DOUBLE NOT NULL,
                mrr            DOUBLE NOT NULL,
                abstention_rate DOUBLE NOT NULL,
                p95_latency_ms DOUBLE NOT NULL
            )
            """,
            """
            CREATE TABLE retrieval_eval_queries (
                eval_id        VARCHAR NOT NULL,
                query_index    INTEGER NOT NULL,
                query          VARCHAR NOT NULL,
                source         VARCHAR NOT NULL,
                collection     VARCHAR NOT NULL,
                expected_doc_ids VARCHAR[] NOT NULL,
                retrieved_doc_ids VARCHAR[] NOT NULL,
                precision_at_k DOUBLE NOT NULL,
                recall_at_k    DOUBLE NOT NULL,
                reciprocal_rank DOUBLE NOT NULL,
                latency_ms     DOUBLE NOT NULL,
                PRIMARY KEY (eval_id, query_index)
            )
            """,
            """
            CREATE OR REPLACE VIEW v_trend AS
            WITH audit_weeks AS (
                SELECT target, date_trunc('week', started_at) AS week, count(*) AS audits,
                       avg(risk) AS mean_risk, max(risk) AS max_risk,
                       avg(hallucination_rate) AS mean_hallucination_rate,
                       avg(pass_rate) AS mean_pass_rate,
                       arg_max(decision, started_at) AS last_decision,
                       max(started_at) AS last_audit_at
                FROM v_audit_summary
                WHERE status = 'finished'
                GROUP BY target, date_trunc('week', started_at)
            ), retrieval_weeks AS (
                SELECT date_trunc('week', evaluated_at) AS week,
                       arg_max(precision_at_k, evaluated_at) AS retrieval_precision,
                       arg_max(recall_at_k, evaluated_at) AS retrieval_recall,
                       arg_max(mrr, evaluated_at) AS retrieval_mrr
                FROM retrieval_evals WHERE scope = 'overall'
                GROUP BY date_trunc('week', evaluated_at)
            )
            SELECT a.*, r.retrieval_precision, r.retrieval_recall, r.retrieval_mrr
            FROM audit_weeks a LEFT JOIN retrieval_weeks r ON r.week = a.week
            """,
            *comment_statements(RETRIEVAL_EVAL_DOCUMENTATION),
        ),
    ),
    Migration(
        9,
        "v_claim_verdicts shows each verdict's error spans",
        (
            """
            CREATE OR REPLACE VIEW v_claim_verdicts AS
            SELECT a.audit_id, a.target, a.started_at, c.prompt_id, c.turn, c.claim_id,
                   c.text AS claim, c.start_char, c.end_char, v.label, v.probability,
                   v.error_spans, v.justification, v.verifier, v.verifier_version,
                   v.decided_by,
                   e.document AS evidence_document, e.section AS evidence_section,
                   e.text AS evidence_text, e.vector_score, e.bm25_score, e.fused_score,
                   e.source AS evidence_source, e.fallback_mode
            FROM claims c
            JOIN audits a USING (audit_id)
            LEFT JOIN verdicts v ON v.audit_id = c.audit_id AND v.claim_id = c.claim_id
            LEFT JOIN evidence e ON e.audit_id = c.audit_id AND e.claim_id = c.claim_id
                 AND e.rank = 1
            """,
            *comment_statements(CLAIM_VIEW_DOCUMENTATION),
        ),
    ),
    Migration(
        10,
        "answer validation: Self-RAG checks, confidence, recommendation and citation class "
        "per response (batch audits and interactive validations)",
        (
            """
            CREATE TABLE response_validations (
                audit_id       VARCHAR NOT NULL,
                prompt_id      VARCHAR NOT NULL,
                turn           INTEGER NOT NULL,
                query_type     VARCHAR NOT NULL,   -- factual or conversational
                isrel          BOOLEAN NOT NULL,
                relevance      DOUBLE NOT NULL,
                grounding_relevance DOUBLE NOT NULL,
                issup          VARCHAR NOT NULL,   -- full, partial or none
                support        DOUBLE NOT NULL,
                isuse          BOOLEAN NOT NULL,
                addresses      DOUBLE NOT NULL,
                usefulness     DOUBLE NOT NULL,
                confidence     DOUBLE NOT NULL,
                recommendation VARCHAR NOT NULL,   -- accept, retry or reject
                citation_class VARCHAR,            -- NULL: no factual claim
                cited_claims   INTEGER NOT NULL,
                method         VARCHAR NOT NULL,
                reasoning      VARCHAR,
                PRIMARY KEY (audit_id, prompt_id, turn)
            )
            """,
            *comment_statements(VALIDATION_DOCUMENTATION),
        ),
    ),
    Migration(
        11,
        "the reference bot's guardrail: generations made and the path each answer took",
        (
            "ALTER TABLE responses ADD COLUMN guardrail_attempts INTEGER",
            "ALTER TABLE responses ADD COLUMN guardrail_path VARCHAR",
            "COMMENT ON COLUMN responses.guardrail_attempts IS 'Generations the target made for "
            "this answer under its guardrail (vault_bot self_correct: 1, or 2 after a "
            "regeneration); NULL for targets without one'",
            "COMMENT ON COLUMN responses.guardrail_path IS 'The path the answer took through "
            "the guardrail: accepted, regenerated, extractive, generation_failed or "
            "abstained; NULL for targets without one (or with self_correct off)'",
        ),
    ),
    Migration(
        12,
        "PDF, HTML and DOCX vault files: each document's format and indexed (converted) text, "
        "the PDF page map, and the pages of each chunk",
        (
            "ALTER TABLE vault_documents ADD COLUMN source_format VARCHAR",
            "ALTER TABLE vault_documents ADD COLUMN text VARCHAR",
            "ALTER TABLE vault_documents ADD COLUMN page_starts BIGINT[]",
            "ALTER TABLE vault_chunks ADD COLUMN first_page INTEGER",
            "ALTER TABLE vault_chunks ADD COLUMN last_page INTEGER",
            *comment_statements(VAULT_FORMATS_DOCUMENTATION),
        ),
    ),
    Migration(
        13,
        "re-verify what changed: verdict keys, carried-over verdicts with their vault state, "
        "stale claims and the chunk history of the vault",
        (
            "ALTER TABLE verdicts ADD COLUMN verdict_key VARCHAR",
            "ALTER TABLE verdicts ADD COLUMN vault_state VARCHAR",
            "ALTER TABLE verdicts ADD COLUMN carried_from VARCHAR",
            "ALTER TABLE verdicts ADD COLUMN superseded_chunk_ids VARCHAR[]",
            "ALTER TABLE risk_scores ADD COLUMN stale INTEGER DEFAULT 0",
            """
            CREATE TABLE vault_chunk_history (
                chunk_id      VARCHAR PRIMARY KEY,
                doc_id        VARCHAR NOT NULL,
                section       VARCHAR,
                text          VARCHAR NOT NULL,
                doc_hash      VARCHAR NOT NULL,
                first_seen_at TIMESTAMPTZ NOT NULL
            )
            """,
            "INSERT INTO vault_chunk_history SELECT chunk_id, doc_id, section, text, doc_hash, "
            "now() FROM vault_chunks",
            """
            CREATE OR REPLACE VIEW v_audit_summary AS
            WITH prompts AS (
                SELECT audit_id, prompt_id, bool_and(passed) AS passed,
                       count(*) AS assertions, count(*) FILTER (WHERE NOT passed) AS failed
                FROM assertion_results GROUP BY audit_id, prompt_id
            ), per_audit AS (
                SELECT audit_id, count(*) AS prompts,
                       count(*) FILTER (WHERE passed) AS prompts_passed,
                       sum(assertions) AS assertions, sum(failed) AS assertions_failed
                FROM prompts GROUP BY audit_id
            )
            SELECT a.audit_id, a.target, a.suite, a.started_at, a.finished_at, a.status,
                   a.decision, a.risk, p.prompts, p.prompts_passed,
                   p.prompts_passed / nullif(p.prompts, 0) AS pass_rate,
                   p.assertions, p.assertions_failed, r.claims, r.supported,
                   r.weakly_supported, r.unsupported, r.contradicted, r.stale, r.unverifiable,
                   r.hallucination_rate, r.citation_accuracy, r.fallback_rate, r.refusal_rate
            FROM audits a
            LEFT JOIN per_audit p USING (audit_id)
            LEFT JOIN risk_scores r ON r.audit_id = a.audit_id AND r.scope = 'audit'
            """,
            """
            CREATE OR REPLACE VIEW v_claim_verdicts AS
            SELECT a.audit_id, a.target, a.started_at, c.prompt_id, c.turn, c.claim_id,
                   c.text AS claim, c.start_char, c.end_char, v.label, v.probability,
                   v.error_spans, v.justification, v.verifier, v.verifier_version,
                   v.decided_by, v.vault_state, v.carried_from,
                   e.document AS evidence_document, e.section AS evidence_section,
                   e.text AS evidence_text, e.vector_score, e.bm25_score, e.fused_score,
                   e.source AS evidence_source, e.fallback_mode
            FROM claims c
            JOIN audits a USING (audit_id)
            LEFT JOIN verdicts v ON v.audit_id = c.audit_id AND v.claim_id = c.claim_id
            LEFT JOIN evidence e ON e.audit_id = c.audit_id AND e.claim_id = c.claim_id
                 AND e.rank = 1
            """,
            """
            CREATE VIEW v_stale_claims AS
            SELECT a.audit_id, a.target, a.started_at, c.prompt_id, c.turn, c.claim_id,
                   c.text AS claim, v.justification, v.vault_state,
                   e.document AS evidence_document, e.text AS evidence_text,
                   (SELECT string_agg(h.text, ' | ') FROM vault_chunk_history h
                    WHERE list_contains(v.superseded_chunk_ids, h.chunk_id)) AS superseded_text
            FROM verdicts v
            JOIN claims c ON c.audit_id = v.audit_id AND c.claim_id = v.claim_id
            JOIN audits a ON a.audit_id = v.audit_id
            LEFT JOIN evidence e ON e.audit_id = v.audit_id AND e.claim_id = v.claim_id
                 AND e.rank = 1
            WHERE v.label = 'stale'
            """,
            *comment_statements(REVERIFY_DOCUMENTATION),
        ),
    ),
    Migration(
        14,
        "claims remember what extracted them, so re-verifying an audit keeps its claims",
        (
            "ALTER TABLE claims ADD COLUMN extraction_key VARCHAR",
            "COMMENT ON COLUMN claims.extraction_key IS 'The extractor and the settings the "
            "claim was extracted with (name, version, digest): a re-verification of the audit "
            "with the same key keeps the claims instead of extracting them again; NULL on rows "
            "written before migration 14'",
        ),
    ),
    Migration(
        15,
        "vault documents say how much of a file's text the converter left out",
        (
            "ALTER TABLE vault_documents ADD COLUMN dropped_share DOUBLE",
            "COMMENT ON COLUMN vault_documents.dropped_share IS 'Share of the file''s text the "
            "converter left out as page furniture (PDF: running headers and footers, lines that "
            "repeat at the same place on most pages once their page number is masked), 0 to 1; "
            "above 0.1 the scan warns. NULL for formats where nothing is left out this way and "
            "on rows written before migration 15'",
        ),
    ),
    Migration(
        16,
        "audits record the release decision (the worst of the gates) with the rule that set it",
        (
            "ALTER TABLE audits ADD COLUMN decision_rule VARCHAR",
            *comment_statements(RELEASE_DOCUMENTATION),
        ),
    ),
    Migration(
        17,
        "audits say what they covered (scope: full, partial, interactive); v_trend compares full "
        "audits with the retrieval evaluation of their vault state; interactive validations get "
        "their own view",
        SCOPE_STATEMENTS,
    ),
    Migration(
        18,
        "audits record the verifier chain that judged them: its stages with their versions and "
        "parameters, its identity and the figures measured for it",
        (
            "ALTER TABLE audits ADD COLUMN verifier_chain VARCHAR",
            "COMMENT ON COLUMN audits.verifier_chain IS 'JSON: the verifier chain of the "
            "audit''s latest verification (name, version = identity digest, quality = the "
            "figures measured for this exact chain or ''not measured for this chain'', stages = "
            "each stage''s name, version, reads, role, params and model files); NULL on rows "
            "written before migration 18'",
        ),
    ),
    Migration(
        19,
        "failed audits say where and why they failed; verdicts say when their evidence changed "
        "during the audit",
        (
            "ALTER TABLE audits ADD COLUMN failed_step VARCHAR",
            "ALTER TABLE audits ADD COLUMN failure VARCHAR",
            "ALTER TABLE verdicts ADD COLUMN evidence_changed VARCHAR",
            *comment_statements(FAILURE_DOCUMENTATION),
        ),
    ),
    Migration(
        20,
        "analysts' marks: the marks table (never deleted; a later mark supersedes), the "
        "verifier's own verdict beside one a mark set, v_marks and v_verifier_quality",
        (
            "CREATE SEQUENCE marks_seq START 1",
            MARKS_TABLE,
            "ALTER TABLE verdicts ADD COLUMN verifier_verdict VARCHAR",
            MARKS_VIEW,
            QUALITY_VIEW,
            *comment_statements(
                {k: v for k, v in MARKS_DOCUMENTATION.items() if "mark_features" not in k}
            ),
        ),
    ),
    Migration(
        21,
        "the features audit-pipeline calibrate fits the learned model on, per marked answer",
        (
            MARK_FEATURES_TABLE,
            *comment_statements(
                {k: v for k, v in MARKS_DOCUMENTATION.items() if "mark_features" in k}
            ),
        ),
    ),
    Migration(
        22,
        "an answer the answer-level model reads as hallucinated while no claim shows it is "
        "flagged on its least supported claim (verdicts.answer_suspect), not labelled",
        (
            "ALTER TABLE verdicts ADD COLUMN answer_suspect BOOLEAN DEFAULT false",
            *comment_statements(SUSPECT_DOCUMENTATION),
        ),
    ),
)

LATEST_VERSION = MIGRATIONS[-1].version
