"""Migration 17: what an audit covered (``audits.scope``), so trends compare like with like.

Before it, every ``/validate`` or MCP call (an ``interactive`` audit with no risk) and every
partial audit (``--id``, ``--category``) entered ``v_audit_summary`` and ``v_trend``: the trend
showed risk "improving" from 0.05 to 0 when only a subset was asked. ``scope`` is ``full`` (the
whole suite), ``partial`` (a selection of it) or ``interactive`` (one validation over HTTP or
MCP). The column's default is ``interactive``: batch audits always write theirs
(``audit_tables.start_audit``), and the validation service writes its audit rows whole without
one. Existing rows are backfilled: target ``interactive`` is interactive, an audit that asked
every prompt of its suite version is full, any other partial.

``v_trend`` then rolls up full audits only, with the retrieval evaluation of the vault state the
week's last audit ran against (before: the week's last evaluation, whatever vault it measured,
on every target's row); ``v_audit_summary`` leaves interactive validations out, and they get
their own view, ``v_interactive_validations``.
"""

from __future__ import annotations

from audit_pipeline.warehouse.documentation import comment_statements

SCOPE_DOCUMENTATION: dict[str, str] = {
    "COLUMN audits.scope": "What the audit covered: full (every prompt of its suite), partial "
    "(--id / --category: a selection) or interactive (one validation over HTTP or MCP; the "
    "column's default, as the validation service writes its rows without one). v_trend, the "
    "notebook's trend and the report's previous audit compare full audits only. Backfilled by "
    "migration 17 from the prompts each audit asked.",
    "VIEW v_audit_summary": "One row per batch audit (interactive validations are in "
    "v_interactive_validations): scope, release decision and its rule, risk, prompts passed, "
    "claim counts and rates.",
    "VIEW v_trend": "Per target and week, full audits only: audits, mean and max risk, "
    "hallucination and pass rates, last decision, and the latest overall retrieval evaluation "
    "of the vault state the week's last audit ran against (NULL when that state was never "
    "evaluated).",
    "VIEW v_interactive_validations": "One row per interactive validation (POST /validate, "
    "MCP): the question, the answer, its claims by label, and the Self-RAG checks "
    "(confidence, recommendation, citation class).",
}

_BACKFILL = """
UPDATE audits SET scope = CASE
    WHEN target = 'interactive' THEN 'interactive'
    WHEN (SELECT count(DISTINCT r.prompt_id) FROM responses r
          WHERE r.audit_id = audits.audit_id)
         >= (SELECT count(DISTINCT s.prompt_id) FROM suite_prompts s
             WHERE s.suite = audits.suite AND s.suite_hash = audits.suite_hash)
        THEN 'full'
    ELSE 'partial'
END
"""

_AUDIT_SUMMARY = """
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
SELECT a.audit_id, a.target, a.suite, a.scope, a.started_at, a.finished_at, a.status,
       a.decision, a.decision_rule, a.risk, a.vault_hash, p.prompts, p.prompts_passed,
       p.prompts_passed / nullif(p.prompts, 0) AS pass_rate,
       p.assertions, p.assertions_failed, r.claims, r.supported,
       r.weakly_supported, r.unsupported, r.contradicted, r.stale, r.unverifiable,
       r.hallucination_rate, r.citation_accuracy, r.fallback_rate, r.refusal_rate
FROM audits a
LEFT JOIN per_audit p USING (audit_id)
LEFT JOIN risk_scores r ON r.audit_id = a.audit_id AND r.scope = 'audit'
WHERE a.scope <> 'interactive'
"""

_TREND = """
CREATE OR REPLACE VIEW v_trend AS
WITH audit_weeks AS (
    SELECT target, date_trunc('week', started_at) AS week, count(*) AS audits,
           avg(risk) AS mean_risk, max(risk) AS max_risk,
           avg(hallucination_rate) AS mean_hallucination_rate,
           avg(pass_rate) AS mean_pass_rate,
           arg_max(decision, started_at) AS last_decision,
           max(started_at) AS last_audit_at,
           arg_max(vault_hash, started_at) AS vault_hash
    FROM v_audit_summary
    WHERE status = 'finished' AND scope = 'full'
    GROUP BY target, date_trunc('week', started_at)
), vault_states AS (
    SELECT vault_hash,
           arg_max(precision_at_k, evaluated_at) AS retrieval_precision,
           arg_max(recall_at_k, evaluated_at) AS retrieval_recall,
           arg_max(mrr, evaluated_at) AS retrieval_mrr
    FROM retrieval_evals WHERE scope = 'overall' AND vault_hash IS NOT NULL
    GROUP BY vault_hash
)
SELECT a.target, a.week, a.audits, a.mean_risk, a.max_risk, a.mean_hallucination_rate,
       a.mean_pass_rate, a.last_decision, a.last_audit_at, a.vault_hash,
       r.retrieval_precision, r.retrieval_recall, r.retrieval_mrr
FROM audit_weeks a LEFT JOIN vault_states r USING (vault_hash)
"""

_INTERACTIVE = """
CREATE VIEW v_interactive_validations AS
WITH labels AS (
    SELECT audit_id, count(*) AS claims,
           count(*) FILTER (WHERE label = 'supported') AS supported,
           count(*) FILTER (WHERE label = 'weakly_supported') AS weakly_supported,
           count(*) FILTER (WHERE label = 'unsupported') AS unsupported,
           count(*) FILTER (WHERE label = 'contradicted') AS contradicted,
           count(*) FILTER (WHERE label = 'stale') AS stale,
           count(*) FILTER (WHERE label = 'unverifiable') AS unverifiable
    FROM verdicts GROUP BY audit_id
)
SELECT a.audit_id, a.started_at, a.finished_at, r.prompt AS question, r.response AS answer,
       coalesce(l.claims, 0) AS claims, l.supported, l.weakly_supported, l.unsupported,
       l.contradicted, l.stale, l.unverifiable, v.confidence, v.recommendation,
       v.citation_class, a.judge_calls, a.judge_cost_usd
FROM audits a
LEFT JOIN responses r ON r.audit_id = a.audit_id
LEFT JOIN labels l ON l.audit_id = a.audit_id
LEFT JOIN response_validations v ON v.audit_id = a.audit_id
WHERE a.scope = 'interactive'
"""

SCOPE_STATEMENTS: tuple[str, ...] = (
    "ALTER TABLE audits ADD COLUMN scope VARCHAR DEFAULT 'interactive'",
    _BACKFILL,
    _AUDIT_SUMMARY,
    _TREND,
    _INTERACTIVE,
    *comment_statements(SCOPE_DOCUMENTATION),
)
