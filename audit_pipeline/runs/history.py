"""Audit outcomes rebuilt from the warehouse (what ``report`` and ``diff`` start from).

``audit-pipeline report`` and ``diff`` work on audits finished days ago, from any machine that
has the DuckDB file: everything they show is recomputed from stored rows, with the same
functions the pipeline used when the audit ran.
"""

from __future__ import annotations

from audit_pipeline.scoring.audit_outcome import SUMMARY_KEYS, AuditOutcome
from audit_pipeline.scoring.audit_summary import answered_keys, summarize
from audit_pipeline.scoring.completeness import completeness
from audit_pipeline.scoring.gates import GateSettings, evaluate_gates
from audit_pipeline.scoring.risk import ScoringSettings
from audit_pipeline.scoring.rules import HALLUCINATED, release_decision
from audit_pipeline.warehouse.audit_tables import load_response_records
from audit_pipeline.warehouse.store import Warehouse, or_none
from audit_pipeline.warehouse.verdict_tables import labels_by_turn, load_assertion_rows


class UnknownAuditError(LookupError):
    pass


def load_outcome(
    warehouse: Warehouse, audit_id: str, gates: GateSettings, scoring: ScoringSettings
) -> AuditOutcome:
    """The outcome of a finished audit. The decision and its rule are the ones recorded when
    it ran (what CI acted on); the gates are recomputed from the stored rows with today's
    settings (no waivers). An audit recorded before migration 16 has no rule: its decision is
    the worst of those gates, as it would be today."""
    audit = warehouse.query("SELECT * FROM audits WHERE audit_id = ?", [audit_id])
    if audit.empty:
        raise UnknownAuditError(f"no audit {audit_id!r} in {warehouse.path}")
    row = audit.iloc[0]
    if or_none(row["decision"]) is None:
        raise UnknownAuditError(f"audit {audit_id!r} has not finished (status {row['status']})")
    labels = labels_by_turn(warehouse, audit_id)
    records = load_response_records(warehouse, audit_id)
    hallucinated = {key for key, found in labels.items() if HALLUCINATED.intersection(found)}
    summary = summarize(
        load_assertion_rows(warehouse, audit_id), answered_keys(records), hallucinated
    ).to_dict()
    risks = warehouse.query(
        "SELECT category, risk FROM risk_scores WHERE audit_id = ? AND scope = 'category'",
        [audit_id],
    )
    risk_by_category = {r.category: or_none(r.risk) for r in risks.itertuples(index=False)}
    by_category = {
        name: {
            **summary["by_category"].get(name, {"passed": 0, "failed": 0}),
            "risk": risk_by_category.get(name),
        }
        for name in sorted(set(summary["by_category"]) | set(risk_by_category))
    }
    checked = completeness(records, labels)
    problems = checked.problems(scoring.incomplete_share)
    results = evaluate_gates(
        summary,
        gates,
        risk=or_none(row["risk"]),
        thresholds=scoring.thresholds,
        incomplete=problems,
        on_incomplete=scoring.on_incomplete,
        unchecked=checked.notes(scoring.incomplete_share),
    )
    rule = or_none(row.get("decision_rule"))
    release = release_decision(results)
    return AuditOutcome(
        audit_id=audit_id,
        target=row["target"],
        suite=row["suite"],
        decision=row["decision"] if rule is not None else release.decision,
        rule=rule if rule is not None else release.rule,
        risk=or_none(row["risk"]),
        summary={key: summary[key] for key in SUMMARY_KEYS},
        by_category=by_category,
        failures=summary["failures"],
        gates=results,
        incomplete=problems,
    )
