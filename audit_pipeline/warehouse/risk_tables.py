"""Stored risk per prompt and the prompts an audit asked: what ``diff`` compares two audits on."""

from __future__ import annotations

from audit_pipeline.warehouse.store import Warehouse


def prompt_risks(warehouse: Warehouse, audit_id: str) -> dict[str, float]:
    """Risk per answered prompt: the mean over its answered turns, no checkable claim = 0."""
    frame = warehouse.query(
        "SELECT prompt_id, avg(coalesce(risk, 0)) AS risk FROM risk_scores"
        " WHERE audit_id = ? AND scope = 'response' GROUP BY prompt_id",
        [audit_id],
    )
    return {row.prompt_id: float(row.risk) for row in frame.itertuples(index=False)}


def asked_prompts(warehouse: Warehouse, audit_id: str) -> dict[str, str]:
    """Every prompt the audit sent (answered or not), with its category from the audited
    suite version (``uncategorised`` for a prompt the suite does not list, a fuzz variant's)."""
    frame = warehouse.query(
        "SELECT DISTINCT r.prompt_id, coalesce(s.category, 'uncategorised') AS category"
        " FROM responses r JOIN audits a USING (audit_id)"
        " LEFT JOIN (SELECT DISTINCT suite, suite_hash, prompt_id, category FROM suite_prompts) s"
        " ON s.suite = a.suite AND s.suite_hash = a.suite_hash AND s.prompt_id = r.prompt_id"
        " WHERE r.audit_id = ?",
        [audit_id],
    )
    return {row.prompt_id: row.category for row in frame.itertuples(index=False)}
