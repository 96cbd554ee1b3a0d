"""Number, date and label formatting shared by the HTML and Markdown reports.

Both formats must quote the same figures the same way, so a number read in the Markdown posted
on a pull request matches the HTML report linked from it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from audit_pipeline.reports.data import AssertionResult, Citation, Claim, PromptResult, ReportData
from audit_pipeline.reports.highlight_spans import place
from audit_pipeline.scoring.rules import RiskThresholds

_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")
_EMPHASIS = re.compile(r"\*\*|__")
_BULLET = re.compile(r"\s[-*]\s")
_HEADING = re.compile(r"^#{1,6}\s+")
# A chunk's content hash in a verifier's justification: an identifier for machines, noise in
# a sentence a person reads (the evidence list names the passage by document and section).
_CHUNK_HASH = re.compile(r"\s*\((?:chunk\s+)?[0-9a-f]{16,64}\)")
# A quoted passage in a justification: '- **All access is revoked ...**'.
_QUOTED_MARKUP = re.compile(r"'(?:[-*+]\s+)?([^']*)'")
DASH = "\u2014"  # em dash: no value
CRUMB = "\u203a"  # between document and section


DECISION_WORDS = {
    "deploy": "Safe to deploy",
    "warn": "Deploy with care",
    "block": "Do not deploy",
    "incomplete": "Not decided",
}


def report_decision(data: ReportData, thresholds: RiskThresholds) -> str | None:
    """The recorded release decision, else the zone the risk falls in (a report of an audit
    that has not been scored yet)."""
    score = data.audit_score
    decision = data.audit.decision or (score.decision if score else None)
    if decision:
        return decision.lower()
    risk = data.audit.risk if data.audit.risk is not None else (score.risk if score else None)
    return thresholds.zone(risk)


def decision_sentence(decision: str | None, rule: str | None) -> str:
    """The report's line under the badge: the decision in words and the rule that set it, the
    same rule the CLI's last line and the ``audits`` row name (``Do not deploy: gate
    hallucinations 1 > 0.``)."""
    if decision not in DECISION_WORDS:
        return "No decision recorded for this audit yet."
    words = DECISION_WORDS[decision]
    return f"{words}: {rule}." if rule else f"{words}."


def pct(value: float | None, digits: int = 1) -> str:
    return DASH if value is None else f"{100 * value:.{digits}f}%"


def num(value: float | None, digits: int = 3) -> str:
    return DASH if value is None else f"{value:.{digits}f}"


def retrieval_line(retrieval: Mapping[str, Any] | None) -> str:
    """The last golden-set evaluation of the retriever before the audit ended, in one line: a
    verdict rests on the evidence retrieval found, so its quality belongs next to the
    verifier's."""
    if not retrieval:
        return ""
    r = retrieval
    return (
        f"precision {r['precision_at_k']:.3f} · recall {r['recall_at_k']:.3f} · "
        f"MRR {r['mrr']:.3f} (first {r['k']} hits) · abstention {r['abstention_rate']:.1%} · "
        f"p95 {r['p95_latency_ms']:.0f} ms ({r['queries']} golden queries, set "
        f"{r['golden_hash']}, {when(r['evaluated_at'])})"
    )


def when(moment: datetime | None) -> str:
    if moment is None:
        return DASH
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def duration(start: datetime | None, end: datetime | None) -> str | None:
    if start is None or end is None:
        return None
    seconds = max(0, int((end - start).total_seconds()))
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    return f"{minutes} min {seconds:02d} s" if minutes else f"{seconds} s"


def short_hash(value: str | None, length: int = 12) -> str:
    return DASH if not value else value[:length]


def label_text(label: str | None) -> str:
    return "not judged" if label is None else label.replace("_", " ")


def claim_refs(prompt: PromptResult) -> dict[str, str]:
    """``C1``, ``C2``… for the hallucinated claims of a prompt, in reading order: turn by turn,
    and within a turn by where the claim is highlighted (unplaceable claims last)."""
    refs: dict[str, str] = {}
    for turn in prompt.turns:
        text = turn.response or ""

        def position(claim: Claim, text: str = text) -> tuple[int, int]:
            placed = place(text, claim.start_char, claim.end_char, claim.text)
            return (0, placed[0]) if placed else (1, 0)

        for claim in sorted(turn.hallucinations, key=position):
            refs.setdefault(claim.claim_id, f"C{len(refs) + 1}")
    return refs


def plain_excerpt(text: str, limit: int) -> str:
    """A vault passage for reading: Markdown emphasis, table rules and pipes become plain text.

    Only for display; what is shown is still escaped by the renderer like any other data.
    """
    lines = [_HEADING.sub("", line.strip()) for line in text.splitlines()]
    kept = [line for line in lines if line and not _TABLE_RULE.match(line)]
    flat = " ".join(_cells(line) for line in kept)
    flat = _EMPHASIS.sub("", flat)
    flat = _BULLET.sub(" \u2022 ", " " + flat).strip().rstrip(";")
    return excerpt(flat, limit)


def plain_justification(text: str) -> str:
    """A verifier's justification for reading: on one line, without chunk hashes, and with
    the passages it quotes stripped of their Markdown (emphasis, a leading list marker)."""
    flat = _CHUNK_HASH.sub("", " ".join(text.split()))
    flat = _QUOTED_MARKUP.sub(lambda m: "'" + m.group(1) + "'", flat)
    return _EMPHASIS.sub("", flat)


def _cells(line: str) -> str:
    if line.startswith("|") and line.endswith("|"):
        return " \u00b7 ".join(cell.strip() for cell in line.strip("|").split("|")) + ";"
    return line


def failure_reasons(prompt: PromptResult) -> list[tuple[str, str]]:
    """Short ``(css class, text)`` reasons why a prompt is listed as a failure."""
    reasons: list[tuple[str, str]] = []
    if any(turn.error for turn in prompt.turns):
        reasons.append(("error", "no answer"))
    hallucinations: list[Claim] = list(prompt.hallucinations)
    for label in ("stale", "contradicted", "unsupported"):
        n = sum(1 for claim in hallucinations if claim.label == label)
        if n:
            reasons.append((label, f"{n} {label}"))
    failed = len(prompt.failed_assertions)
    if failed:
        reasons.append(("failed", f"{failed} failed check{'s' if failed != 1 else ''}"))
    return reasons


def excerpt(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word boundary near ``limit`` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0] if " " in flat[:limit] else flat[:limit]
    return cut.rstrip(",.;:") + "…"


def citation_status(citation: Citation, assertions: Sequence[AssertionResult]) -> str | None:
    """``ok`` when every citation check of the turn passed, ``bad`` when a failed one names
    this citation's file or label, else None (the checks do not say which citation failed)."""
    checks = [a for a in assertions if a.is_citation]
    if not checks:
        return None
    failed = [a for a in checks if not a.passed]
    if not failed:
        return "ok"
    names = [name for name in (citation.file, citation.label) if name]
    if any(name in (a.detail or "") for a in failed for name in names):
        return "bad"
    return None
