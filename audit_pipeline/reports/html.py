"""The per-audit report as one self-contained, static HTML page.

Everything a reviewer needs to decide whether a target may ship is on the page: the decision,
the headline numbers, where the risk sits, how it moved since earlier audits, and for every
failure the evidence behind it (``failures_html``). Responses, claims, evidence and
justifications are model or vault output and therefore untrusted: every such string is escaped
on its own with ``html.escape(quote=True)`` at the point it is placed, and highlighting escapes
each segment between span boundaries separately, so no markup is ever built from data. The
page has no script, no external resource and no form (a Content-Security-Policy forbids them
too); it renders the same from an e-mail attachment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from audit_pipeline.reports import charts
from audit_pipeline.reports.data import PromptResult, ReportData
from audit_pipeline.reports.failures_html import anchors_for, failures_section
from audit_pipeline.reports.formatting import (
    DASH,
    duration,
    esc,
    excerpt,
    num,
    pct,
    retrieval_line,
    short_hash,
    when,
)
from audit_pipeline.reports.report_summary import Summary, by_risk, summarize
from audit_pipeline.reports.styles import CSS
from audit_pipeline.scoring.rules import DEFAULT_THRESHOLDS, RiskThresholds

e = esc
_NUM_CLASS = ' class="num"'
_BOLD_ROW = ' style="font-weight:700"'
DECISION_WORDS = {
    "deploy": "Safe to deploy: risk is at or below the deploy limit.",
    "warn": "Deploy with care: risk is above the deploy limit, at or below the warn limit.",
    "block": "Do not deploy: risk is above the warn limit.",
    "incomplete": "Not decided: too much of the audit could not be answered or verified.",
}


def render_html(
    data: ReportData,
    *,
    summary: Mapping[str, Any] | None = None,
    thresholds: RiskThresholds = DEFAULT_THRESHOLDS,
    generated_at: datetime | None = None,
    repeats: Mapping[str, Any] | None = None,
) -> str:
    """The whole report page for ``data``; ``summary`` as computed by the engine, if any;
    ``repeats``: the flakiness of a ``--repeat N`` run."""
    figures = summarize(data, summary)
    anchors = anchors_for(data.prompts)
    audit = data.audit
    title = f"Audit report · {audit.target or 'target'} · {audit.audit_id}"
    body = [
        _masthead(data, thresholds),
        _summary_section(data, figures, thresholds),
        _category_section(figures, data.previous_audit_id, thresholds),
        _charts_section(data, figures, thresholds),
        _flakiness_section(repeats),
        failures_section(data.failures, anchors),
        _passing_section(data.passing, anchors),
        _footer(data, thresholds, generated_at),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f'<main class="page">\n{"".join(body)}\n</main>\n</body>\n</html>\n'
    )


# -- header and summary --------------------------------------------------------------------


def _decision(data: ReportData, thresholds: RiskThresholds) -> str | None:
    decision = data.audit.decision or (data.audit_score.decision if data.audit_score else None)
    if decision:
        return decision.lower()
    return thresholds.zone(_audit_risk(data))


def _audit_risk(data: ReportData) -> float | None:
    if data.audit.risk is not None:
        return data.audit.risk
    return data.audit_score.risk if data.audit_score else None


def _flakiness_section(repeats: Mapping[str, Any] | None) -> str:
    """Seed 000's flakiness protocol: each prompt's failures over the N runs and its class."""
    if not repeats:
        return ""
    rows = "".join(
        f'<tr><td class="mono">{e(prompt)}</td><td>{e(info.get("category") or DASH)}</td>'
        f"<td>{e(info['failed_runs'])} / {e(info['runs'])}</td><td>{e(info['class'])}</td></tr>"
        for prompt, info in repeats.get("prompts", {}).items()
    )
    return (
        f"<section><h2>Flakiness over {e(repeats['runs'])} runs</h2>"
        f'<p class="muted">real: failed in at least {e(repeats["min_fail"])} runs; flaky: '
        "failed in fewer; pass: never failed.</p>"
        "<table><thead><tr><th>prompt</th><th>category</th><th>failed runs</th>"
        f"<th>class</th></tr></thead><tbody>{rows}</tbody></table></section>"
    )


def _masthead(data: ReportData, thresholds: RiskThresholds) -> str:
    audit = data.audit
    decision = _decision(data, thresholds)
    known = decision if decision in DECISION_WORDS else ""
    badge = decision or "pending"
    explain = DECISION_WORDS.get(decision or "", "No decision recorded for this audit yet.")
    risk = _audit_risk(data)
    took = duration(audit.started_at, audit.finished_at)
    meta = [
        ("Audit id", f'<span class="mono">{e(audit.audit_id)}</span>', "wide"),
        ("Started", e(when(audit.started_at)), ""),
        ("Duration · status", e(" · ".join(x for x in (took, audit.status) if x) or DASH), ""),
        ("Suite hash", f'<span class="mono">{e(short_hash(audit.suite_hash))}</span>', ""),
        ("Vault hash", f'<span class="mono">{e(short_hash(audit.vault_hash))}</span>', ""),
        ("Config hash", f'<span class="mono">{e(short_hash(audit.config_hash))}</span>', ""),
        ("Dagster run", f'<span class="mono">{e(short_hash(audit.dagster_run_id, 8))}</span>', ""),
        ("Verifier", e(data.verifier_line() or DASH), "wide"),
        ("Retrieval (golden set)", e(retrieval_line(data.retrieval) or DASH), "wide"),
    ]
    meta_html = "".join(
        f'<div class="{css}"><dt>{e(k)}</dt><dd>{v}</dd></div>' for k, v, css in meta
    )
    return (
        f'<header class="masthead {e(known)}">'
        '<div class="eyebrow">Hallucination audit report</div>'
        f'<div class="title-row"><h1>{e(audit.target or "unknown target")}'
        f' <span class="on">·</span> {e(audit.suite or "unknown suite")}</h1>'
        f'<span class="badge {e(known)}">{e(badge)}</span></div>'
        f'<p class="verdict-line"><strong>Risk {e(num(risk))}</strong>'
        f' <span class="muted">({e(thresholds.legend())})</span>'
        f" — {e(explain)}</p>"
        f'<dl class="meta">{meta_html}</dl></header>'
    )


def _card(key: str, value: str, sub: str = "", tone: str = "", extra: str = "") -> str:
    return (
        f'<div class="card {tone}"><div class="k">{key}</div><div class="v">{value}</div>'
        f'<div class="s">{sub}</div>{extra}</div>'
    )


def _summary_section(data: ReportData, s: Summary, thresholds: RiskThresholds) -> str:
    score = data.audit_score
    rate_width = 0.0 if s.pass_rate is None else max(0.0, min(1.0, s.pass_rate)) * 100
    assertions_total = s.assertions_passed + s.assertions_failed
    cards = [
        _card(
            "Pass rate",
            e(pct(s.pass_rate)),
            f"{s.passed} of {s.total} prompts passed",
            "good" if s.failed == 0 else ("bad" if (s.pass_rate or 0) < 0.8 else "meh"),
            f'<div class="bar"><span style="width:{rate_width:.1f}%"></span></div>',
        ),
        _card(
            "Failed prompts",
            str(s.failed),
            "prompts with a failed check",
            "bad" if s.failed else "good",
        ),
        _card(
            "Assertions",
            f'{s.assertions_passed}<span class="muted" style="font-size:18px">'
            f"/{assertions_total}</span>",
            f"{s.assertions_failed} failed",
            "bad" if s.assertions_failed else "good",
        ),
        _card(
            "Hallucinations",
            str(s.hallucinations),
            "answers with an unsupported or contradicted claim, or a forbidden string",
            "bad" if s.hallucinations else "good",
        ),
        _card(
            "Citation errors",
            str(s.citation_errors),
            "failed citation checks",
            "bad" if s.citation_errors else "good",
        ),
        _card(
            "Fallback errors",
            str(s.fallback_errors),
            "missed or wrong fallbacks",
            "bad" if s.fallback_errors else "good",
        ),
        _card(
            "Hallucination rate",
            e(pct(score.hallucination_rate if score else None)),
            f"of answers have an unsupported or contradicted claim · {score.claims} claims"
            if score
            else "no audit score yet",
        ),
        _card(
            "Citation accuracy",
            e(pct(score.citation_accuracy if score else None)),
            "fallback rate "
            + e(pct(score.fallback_rate if score else None))
            + " · refusals "
            + e(pct(score.refusal_rate if score else None)),
        ),
    ]
    return (
        f'<section id="summary"><h2>Summary</h2><div class="cards">{"".join(cards)}</div></section>'
    )


def _risk_pill(risk: float | None, thresholds: RiskThresholds) -> str:
    return f'<span class="pill {e(thresholds.zone(risk) or "")}">{e(num(risk))}</span>'


def _delta(current: float | None, previous: float | None) -> str:
    if current is None or previous is None:
        return f'<span class="muted">{DASH}</span>'
    change = current - previous
    if abs(change) < 0.0005:
        return '<span class="muted">±0.000</span>'
    css = "delta-up" if change > 0 else "delta-down"
    arrow = "▲" if change > 0 else "▼"
    return f'<span class="{css}">{arrow} {abs(change):.3f}</span>'


CATEGORY_COLUMNS = (
    ("Category", ""),
    ("Prompts", ""),
    ("Failed", ""),
    ("Pass rate", ""),
    ("Claims", "verified claims"),
    ("Unsupp.", "unsupported claims"),
    ("Contra.", "contradicted claims"),
    ("Halluc.", "hallucination rate"),
    ("Cit. acc.", "citation accuracy"),
    ("Risk", "risk in this audit"),
    ("Prev.", "risk in the previous audit of this target"),
    ("Change", "change since the previous audit"),
)


def _category_section(s: Summary, previous_audit_id: str | None, thresholds: RiskThresholds) -> str:
    rows = []
    for row in by_risk(s.categories):
        score = row.score
        rate = row.pass_rate
        failed = f'<span class="bad-text">{row.failed}</span>' if row.failed else "0"
        rows.append(
            "<tr>"
            f'<td class="cat">{e(row.category)}</td>'
            f'<td class="num">{row.total}</td><td class="num">{failed}</td>'
            f'<td class="num">{e(pct(rate, 0))}</td>'
            f'<td class="num">{score.claims if score else DASH}</td>'
            f'<td class="num">{score.unsupported if score else DASH}</td>'
            f'<td class="num">{score.contradicted if score else DASH}</td>'
            f'<td class="num">{e(pct(score.hallucination_rate if score else None))}</td>'
            f'<td class="num">{e(pct(score.citation_accuracy if score else None))}</td>'
            f'<td class="num">{_risk_pill(row.risk, thresholds)}</td>'
            f'<td class="num muted">{e(num(row.previous_risk))}</td>'
            f'<td class="num">{_delta(row.risk, row.previous_risk)}</td>'
            "</tr>"
        )
    previous = (
        f'Previous audit of this target: <span class="mono">{e(previous_audit_id)}</span>.'
        if previous_audit_id
        else "No earlier audit of this target to compare with."
    )
    head = "".join(
        f'<th{_NUM_CLASS if i else ""} title="{e(tip)}">{e(name)}</th>'
        for i, (name, tip) in enumerate(CATEGORY_COLUMNS)
    )
    body = "".join(rows) or (
        f'<tr><td colspan="{len(CATEGORY_COLUMNS)}" class="muted">No categories.</td></tr>'
    )
    return (
        '<section id="categories"><h2>By category</h2>'
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
        f'</table></div><p class="note">Sorted by risk, highest first. {previous}</p></section>'
    )


def _charts_section(data: ReportData, s: Summary, thresholds: RiskThresholds) -> str:
    bars = charts.risk_bars([(row.category, row.risk) for row in by_risk(s.categories)], thresholds)
    donut = charts.verdict_donut(data.verdict_counts())
    trend = charts.trend_chart(data.trend, thresholds)
    trend_rows = "".join(
        f"<tr{_BOLD_ROW if p.is_current else ''}>"
        f'<td class="mono">{e(p.audit_id)}{" (this audit)" if p.is_current else ""}</td>'
        f"<td>{e(when(p.started_at))}</td>"
        f'<td class="num">{_risk_pill(p.risk, thresholds)}</td>'
        f'<td class="num">{e(pct(p.hallucination_rate))}</td>'
        f'<td><span class="pill {e((p.decision or "").lower())}">'
        f"{e(p.decision or DASH)}</span></td>"
        "</tr>"
        for p in reversed(data.trend)
    )
    earlier = len(data.trend) - 1
    note = (
        f"This audit and the {earlier} before it for target "
        f"<strong>{e(data.audit.target or DASH)}</strong>; dashed lines are the thresholds."
        if earlier
        else "First audit of this target: the trend starts here."
    )
    return (
        '<section id="charts"><h2>Where the risk is</h2><div class="charts">'
        f'<div class="panel"><h3>Risk by category</h3>{bars}</div>'
        f'<div class="panel"><h3>Claims by verdict</h3>{donut}'
        f'<p class="note">{_verdict_note(data)}</p></div>'
        f'<div class="panel wide"><h3>Trend</h3>{trend}<p class="note">{note}</p>'
        '<div class="table-wrap trend-table"><table><thead><tr><th>Audit</th><th>Started</th>'
        '<th class="num">Risk</th><th class="num">Halluc. rate</th><th>Decision</th></tr>'
        f"</thead><tbody>{trend_rows}</tbody></table></div></div>"
        "</div></section>"
    )


def _verdict_note(data: ReportData) -> str:
    counts = data.verdict_counts()
    total = sum(counts.values())
    if not total:
        return "No claims were extracted from the responses."
    bad = counts.get("unsupported", 0) + counts.get("contradicted", 0)
    return (
        f"<strong>{bad}</strong> of {total} claims ({e(pct(bad / total))}) are unsupported or "
        "contradicted by the vault; each is shown, highlighted, under Failures."
    )


# -- passing prompts and footer ------------------------------------------------------------


def _confidence(prompt: PromptResult) -> str:
    """The lowest Self-RAG confidence among the prompt's turns (its weakest answer)."""
    values = [t.confidence for t in prompt.turns if t.confidence is not None]
    return f"{min(values):.2f}" if values else DASH


def _passing_section(passing: Sequence[PromptResult], anchors: Mapping[str, str]) -> str:
    if not passing:
        return (
            '<section id="passing"><h2>Passing prompts <span class="count">0</span></h2>'
            '<p class="muted">No prompt passed.</p></section>'
        )
    rows = "".join(
        f'<tr id="{e(anchors[p.prompt_id])}"><td class="mono" style="white-space:nowrap">'
        f"{e(p.prompt_id)}</td><td>{e(p.category)}</td>"
        f'<td class="num">{len(p.turns)}</td><td class="num">{len(p.claims)}</td>'
        f'<td class="num">{sum(len(t.assertions) for t in p.turns)}</td>'
        f'<td class="num">{e(_confidence(p))}</td>'
        f'<td class="prompt" title="{e(excerpt(p.turns[0].prompt, 400))}">'
        f"{e(excerpt(p.turns[0].prompt, 160))}</td></tr>"
        for p in passing
    )
    return (
        f'<section id="passing"><h2>Passing prompts <span class="count">{len(passing)}</span></h2>'
        '<div class="table-wrap passing"><table><thead><tr><th>Prompt</th><th>Category</th>'
        '<th class="num">Turns</th><th class="num">Claims</th><th class="num">Checks</th>'
        '<th class="num" title="lowest Self-RAG confidence of its turns">Confidence</th>'
        f"<th>Question</th></tr></thead><tbody>{rows}</tbody></table></div></section>"
    )


def _footer(data: ReportData, thresholds: RiskThresholds, generated_at: datetime | None) -> str:
    made = when(generated_at or datetime.now(UTC))
    return (
        f'<footer class="foot">Generated {e(made)} from the audit warehouse · thresholds '
        f"{e(thresholds.legend())} · highlighted spans: "
        '<mark class="contradicted">contradicted</mark> '
        '<mark class="unsupported">unsupported</mark> claims, within them '
        '<mark class="error-span">what the evidence does not back</mark>. '
        "Model output on this page is shown as text and never interpreted as markup.</footer>"
    )
