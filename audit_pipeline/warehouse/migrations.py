"""The warehouse schema as an ordered list of migrations.

Analysts keep months of audit history in this file, so the schema only ever moves forward:
a new table or column is a new migration appended here, never an edit of an applied one and
never a drop-and-create. ``schema_migrations`` records what has been applied.
"""

from __future__ import annotations

from dataclasses import dataclass


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
)

LATEST_VERSION = MIGRATIONS[-1].version
