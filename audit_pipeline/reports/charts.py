"""Inline SVG charts for the HTML report, drawn by hand.

A report is one static file that is mailed, attached to tickets and opened years later, so the
charts cannot depend on a plotting library at render time, a CDN or JavaScript. Three small
chart types cover what the report needs. Each chart is handed to the page template as ``Markup``
(it is markup the report draws, not data), so every text that reaches the SVG (category names
come from suite files) is escaped here, like any other data.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from html import escape

from markupsafe import Markup

from audit_pipeline.reports.data import TrendPoint
from audit_pipeline.scoring.rules import DEFAULT_THRESHOLDS, RiskThresholds

ZONE_COLOURS: dict[str, str] = {"deploy": "#1a7f37", "warn": "#c27803", "block": "#c42b2b"}
NEUTRAL = "#94a3b8"
INK = "#1f2937"
MUTED = "#6b7280"
GRID = "#e5e7eb"
VERDICT_COLOURS: dict[str, str] = {
    "supported": "#1a7f37",
    "weakly_supported": "#7cc48a",
    "unsupported": "#e69b00",
    "contradicted": "#c42b2b",
    "stale": "#8a4fbf",
    "unverifiable": "#a8b0bd",
    "pending": "#dde1e7",
}
FONT = 'font-family="inherit"'


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _svg(width: int, height: int, title: str, body: list[str]) -> Markup:
    return Markup(
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}"'
        f' role="img" aria-label="{_e(title)}" xmlns="http://www.w3.org/2000/svg" {FONT}>'
        f"<title>{_e(title)}</title>{''.join(body)}</svg>"
    )


def _nice_max(value: float, step: float = 0.05) -> float:
    return max(step, math.ceil(value / step - 1e-9) * step)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def risk_bars(
    rows: Sequence[tuple[str, float | None]], thresholds: RiskThresholds = DEFAULT_THRESHOLDS
) -> Markup:
    """Horizontal bars of risk per category, coloured by the zone each falls in."""
    warn, block = thresholds.deploy_max_risk, thresholds.warn_max_risk
    label_w, bar_w, row_h, top = 150, 330, 26, 30
    width, height = label_w + bar_w + 60, top + row_h * max(1, len(rows)) + 12
    top_value = _nice_max(max([block * 1.3, *(r for _, r in rows if r is not None)]), 0.1)

    def x(value: float) -> float:
        return label_w + bar_w * min(value, top_value) / top_value

    body: list[str] = []
    # The warn label sits left of its line and the block label right of its own, so the two
    # never overlap however close the thresholds are.
    for value, name, colour, anchor, shift in (
        (warn, "warn", ZONE_COLOURS["warn"], "end", -3),
        (block, "block", ZONE_COLOURS["block"], "start", 3),
    ):
        body.append(
            f'<line x1="{x(value):.1f}" y1="{top - 8}" x2="{x(value):.1f}" y2="{height - 8}"'
            f' stroke="{colour}" stroke-width="1.2" stroke-dasharray="4 3"/>'
            f'<text x="{x(value) + shift:.1f}" y="{top - 12}" text-anchor="{anchor}"'
            f' font-size="11" fill="{colour}">{name} {value:.2f}</text>'
        )
    if not rows:
        body.append(
            f'<text x="{label_w}" y="{top + 17}" font-size="12" fill="{MUTED}">no categories</text>'
        )
    for i, (category, risk) in enumerate(rows):
        y = top + i * row_h
        colour = ZONE_COLOURS.get(thresholds.zone(risk) or "", NEUTRAL)
        body.append(
            f'<text x="{label_w - 10}" y="{y + 17}" text-anchor="end" font-size="12.5"'
            f' fill="{INK}">{_e(category)}</text>'
            f'<rect x="{label_w}" y="{y + 5}" width="{bar_w}" height="16" rx="3" fill="#f3f4f6"/>'
        )
        if risk is not None:
            end = x(max(risk, 0.0))
            body.append(
                f'<rect x="{label_w}" y="{y + 5}" width="{max(end - label_w, 2):.1f}" height="16"'
                f' rx="3" fill="{colour}"><title>{_e(category)}: risk {risk:.3f}</title></rect>'
            )
        body.append(
            f'<text x="{label_w + bar_w + 8}" y="{y + 17}" font-size="12" fill="{INK}"'
            f' font-variant-numeric="tabular-nums">{_fmt(risk)}</text>'
        )
    return _svg(width, height, "Risk by category", body)


def verdict_donut(counts: Mapping[str, int]) -> Markup:
    """A donut of claims by verdict label, with a legend of counts and shares."""
    items = [(label, n) for label, n in counts.items() if n > 0 or label in VERDICT_COLOURS]
    items = [(label, n) for label, n in items if n > 0 or label != "pending"]
    total = sum(n for _, n in items)
    cx, cy, r, stroke = 84, 84, 58, 24
    circumference = 2 * math.pi * r
    body = [
        f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="none" stroke="#f1f3f5"'
        f' stroke-width="{stroke}"/>'
    ]
    offset = 0.0
    for label, n in items:
        if n <= 0 or total == 0:
            continue
        length = circumference * n / total
        body.append(
            f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="none"'
            f' stroke="{VERDICT_COLOURS.get(label, NEUTRAL)}" stroke-width="{stroke}"'
            f' stroke-dasharray="{length:.2f} {circumference - length:.2f}"'
            f' stroke-dashoffset="{-offset:.2f}" transform="rotate(-90 {cx} {cy})">'
            f"<title>{_e(label)}: {n}</title></circle>"
        )
        offset += length
    body.append(
        f'<text x="{cx}" y="{cy + 2}" text-anchor="middle" font-size="26" font-weight="700"'
        f' fill="{INK}">{total}</text>'
        f'<text x="{cx}" y="{cy + 20}" text-anchor="middle" font-size="11" fill="{MUTED}">'
        "claims</text>"
    )
    for i, (label, n) in enumerate(items):
        y = 26 + i * 24
        share = f"{100 * n / total:.0f}%" if total else "-"
        body.append(
            f'<rect x="188" y="{y - 10}" width="12" height="12" rx="2"'
            f' fill="{VERDICT_COLOURS.get(label, NEUTRAL)}"/>'
            f'<text x="208" y="{y}" font-size="12.5" fill="{INK}">'
            f"{_e(label.replace('_', ' '))}</text>"
            f'<text x="360" y="{y}" text-anchor="end" font-size="12.5" fill="{INK}"'
            f' font-weight="600">{n}</text>'
            f'<text x="400" y="{y}" text-anchor="end" font-size="12" fill="{MUTED}">{share}</text>'
        )
    height = max(172, 30 + 24 * len(items))
    return _svg(410, height, "Claims by verdict", body)


def trend_chart(
    points: Sequence[TrendPoint], thresholds: RiskThresholds = DEFAULT_THRESHOLDS
) -> Markup:
    """Risk of this and earlier audits of the target, with the decision thresholds dashed."""
    warn, block = thresholds.deploy_max_risk, thresholds.warn_max_risk
    width, height = 1010, 250
    left, right, top, bottom = 48, 96, 34, 44
    values = [v for p in points for v in (p.risk, p.hallucination_rate) if v is not None]
    top_value = _nice_max(max([block * 1.4, *values]) * 1.08)
    plot_w, plot_h = width - left - right, height - top - bottom

    inset = 28.0  # keeps end points clear of the axis labels and the threshold labels

    def x(i: int) -> float:
        if len(points) == 1:
            return left + plot_w / 2
        return left + inset + (plot_w - 2 * inset) * i / (len(points) - 1)

    def y(value: float) -> float:
        return top + plot_h * (1 - min(max(value, 0.0), top_value) / top_value)

    body: list[str] = []
    ticks = 5
    for k in range(ticks + 1):
        value = top_value * k / ticks
        body.append(
            f'<line x1="{left}" y1="{y(value):.1f}" x2="{left + plot_w}" y2="{y(value):.1f}"'
            f' stroke="{GRID}" stroke-width="1"/>'
            f'<text x="{left - 8}" y="{y(value) + 4:.1f}" text-anchor="end" font-size="11"'
            f' fill="{MUTED}">{value:.2f}</text>'
        )
    for value, name in ((warn, "warn"), (block, "block")):
        colour = ZONE_COLOURS[name]
        body.append(
            f'<line x1="{left}" y1="{y(value):.1f}" x2="{left + plot_w}" y2="{y(value):.1f}"'
            f' stroke="{colour}" stroke-width="1.4" stroke-dasharray="6 4"/>'
            f'<text x="{left + plot_w + 8}" y="{y(value) + 4:.1f}" font-size="11.5"'
            f' fill="{colour}">{name} {value:.2f}</text>'
        )
    body.append(_polyline(points, "hallucination_rate", x, y, MUTED, "3 3", 1.4))
    body.append(_polyline(points, "risk", x, y, INK, None, 2.2))
    every = max(1, math.ceil(len(points) / 8))
    for i, point in enumerate(points):
        if point.hallucination_rate is not None:
            body.append(
                f'<circle cx="{x(i):.1f}" cy="{y(point.hallucination_rate):.1f}" r="2.6"'
                f' fill="#fff" stroke="{MUTED}" stroke-width="1.3"/>'
            )
        if point.risk is not None:
            decision = (point.decision or thresholds.zone(point.risk) or "").lower()
            colour = ZONE_COLOURS.get(decision, NEUTRAL)
            radius = 7 if point.is_current else 5
            ring = ' stroke="#fff" stroke-width="2"'
            body.append(
                f'<circle cx="{x(i):.1f}" cy="{y(point.risk):.1f}" r="{radius}" fill="{colour}"'
                f"{ring}><title>{_e(point.audit_id)}: risk {point.risk:.3f}"
                f" ({_e(decision or 'no decision')})</title></circle>"
            )
            if point.is_current:
                body.append(
                    f'<circle cx="{x(i):.1f}" cy="{y(point.risk):.1f}" r="10.5" fill="none"'
                    f' stroke="{colour}" stroke-width="1.5"/>'
                    f'<text x="{x(i):.1f}" y="{y(point.risk) - 15:.1f}" text-anchor="middle"'
                    f' font-size="11.5" font-weight="700" fill="{INK}">{point.risk:.2f}</text>'
                )
        if i % every == 0 or point.is_current:
            weight = ' font-weight="700"' if point.is_current else ""
            body.append(
                f'<text x="{x(i):.1f}" y="{top + plot_h + 18}" text-anchor="middle"'
                f' font-size="11" fill="{INK if point.is_current else MUTED}"{weight}>'
                f"{_e(_day(point.started_at))}</text>"
            )
    body.append(
        f'<line x1="{left}" y1="{top - 18}" x2="{left + 22}" y2="{top - 18}" stroke="{INK}"'
        ' stroke-width="2.2"/>'
        f'<text x="{left + 28}" y="{top - 14}" font-size="11.5" fill="{INK}">risk</text>'
        f'<line x1="{left + 72}" y1="{top - 18}" x2="{left + 94}" y2="{top - 18}"'
        f' stroke="{MUTED}" stroke-width="1.4" stroke-dasharray="3 3"/>'
        f'<text x="{left + 100}" y="{top - 14}" font-size="11.5" fill="{MUTED}">'
        "hallucination rate</text>"
    )
    return _svg(width, height, "Risk of this and earlier audits of the same target", body)


def _polyline(
    points: Sequence[TrendPoint],
    field: str,
    x: Callable[[int], float],
    y: Callable[[float], float],
    colour: str,
    dash: str | None,
    width: float,
) -> str:
    """A line through the non-null values of ``field``; gaps (null values) are skipped over."""
    coords = [
        f"{x(i):.1f},{y(value):.1f}"
        for i, point in enumerate(points)
        if (value := getattr(point, field)) is not None
    ]
    if len(coords) < 2:
        return ""
    dashes = f' stroke-dasharray="{dash}"' if dash else ""
    return (
        f'<polyline points="{" ".join(coords)}" fill="none" stroke="{colour}"'
        f' stroke-width="{width}" stroke-linejoin="round"{dashes}/>'
    )


def _day(moment: datetime | None) -> str:
    return "" if moment is None else moment.strftime("%d %b")
