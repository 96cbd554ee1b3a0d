"""The per-audit report as one self-contained, static HTML page.

Everything a reviewer needs to decide whether a target may ship is on the page: the decision,
the headline numbers, where the risk sits, how it moved since earlier audits, and for every
failure the evidence behind it. The page is laid out by ``templates/report.html.j2`` and
``templates/failures.html.j2``; this module only works out what they show. Responses, claims,
evidence and justifications are model or vault output and therefore untrusted: the templates
escape every value they place (``templating``), highlighting hands them each segment between
span boundaries separately, and only the charts' SVG, which escapes its own text, is passed
in as markup. The page loads nothing and has no form; its one script is the mark control
(``mark_control.py``), allowed by hash in its Content-Security-Policy, which forbids every
other script; it renders the same from an e-mail attachment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from audit_pipeline.records.marks import MARK_LABELS
from audit_pipeline.reports import charts, failures
from audit_pipeline.reports.data import ReportData
from audit_pipeline.reports.formatting import (
    DECISION_WORDS,
    decision_sentence,
    duration,
    report_decision,
    retrieval_line,
    when,
)
from audit_pipeline.reports.gate_table import gate_rows
from audit_pipeline.reports.mark_control import content_security_policy, script_element
from audit_pipeline.reports.marked import marks_retired, marks_sentence, set_by_marks
from audit_pipeline.reports.marks_quality import quality_lines
from audit_pipeline.reports.report_summary import by_risk, summarize
from audit_pipeline.reports.templating import render
from audit_pipeline.reports.verifier_chain import verifier_chain
from audit_pipeline.scoring.gates import GateResult
from audit_pipeline.scoring.rules import DEFAULT_THRESHOLDS, RiskThresholds


def render_html(
    data: ReportData,
    *,
    summary: Mapping[str, Any] | None = None,
    thresholds: RiskThresholds = DEFAULT_THRESHOLDS,
    generated_at: datetime | None = None,
    repeats: Mapping[str, Any] | None = None,
    gates: Sequence[GateResult] = (),
) -> str:
    """The whole report page for ``data``; ``summary`` as computed by the engine, if any;
    ``repeats``: the flakiness of a ``--repeat N`` run; ``gates``: the engine's gates, every
    one listed under the badge with the one that set the decision marked."""
    figures = summarize(data, summary)
    categories = by_risk(figures.categories)
    audit = data.audit
    risk = _audit_risk(data)
    decision = report_decision(data, thresholds)
    took = duration(audit.started_at, audit.finished_at)
    return render(
        "report.html.j2",
        data=data,
        audit=audit,
        s=figures,
        categories=categories,
        thresholds=thresholds,
        repeats=repeats,
        risk=risk,
        decision=decision,
        known=decision if decision in DECISION_WORDS else "",
        explain=decision_sentence(decision, audit.decision_rule),
        gates=gate_rows(gates, audit.decision_rule),
        chain=verifier_chain(data),
        on_marks=quality_lines(data.marks_quality),
        marked=set_by_marks(data),
        retired=marks_retired(data),
        marks_line=marks_sentence(data),
        MARK_LABELS=MARK_LABELS,
        csp=content_security_policy(),
        mark_script=script_element(),
        took_and_status=" · ".join(x for x in (took, audit.status) if x),
        retrieval=retrieval_line(data.retrieval),
        pass_bar=max(0.0, min(1.0, figures.pass_rate or 0.0)) * 100,
        charts={
            "bars": charts.risk_bars([(row.category, row.risk) for row in categories], thresholds),
            "donut": charts.verdict_donut(data.verdict_counts()),
            "trend": charts.trend_chart(data.trend, thresholds),
        },
        anchors=failures.anchors_for(data.prompts),
        generated=when(generated_at or datetime.now(UTC)),
        **failures.helpers(),
    )


def _audit_risk(data: ReportData) -> float | None:
    if data.audit.risk is not None:
        return data.audit.risk
    return data.audit_score.risk if data.audit_score else None
