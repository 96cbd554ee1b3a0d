"""The per-audit report in Markdown, for pull-request comments, chat and terminals.

Same content as the HTML report, with tables in place of charts. Model text is untrusted and
Markdown renders it: an answer containing ``[click](javascript:…)``, ``<img onerror=…>``, a
bare URL or a table pipe would become a live link, raw HTML or a broken table. Every piece of
model or vault text therefore goes through ``escape_markdown``, which escapes only what Markdown
would read as markup, where it would read it, so the file stays readable as plain text (``4 > 0``,
not ``4 &#62; 0``): a backslash before the characters that open inline constructs, before a
line's leading block marker and before an ``&`` that would start an entity. Bare URLs and
``@`` (GFM's autolinks, which a backslash does not stop) become character references.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from audit_pipeline.reports.data import Claim, PromptResult, ReportData, Turn
from audit_pipeline.reports.formatting import (
    CRUMB,
    DASH,
    citation_status,
    claim_refs,
    decision_sentence,
    excerpt,
    failure_reasons,
    label_text,
    num,
    pct,
    plain_excerpt,
    plain_justification,
    report_decision,
    retrieval_line,
    short_hash,
    when,
)
from audit_pipeline.reports.gate_table import gate_rows
from audit_pipeline.reports.highlight_spans import (
    Mark,
    Segment,
    error_ranges,
    place,
    runs,
    segments,
)
from audit_pipeline.reports.markdown import markdown_table
from audit_pipeline.reports.marked import marks_retired, marks_sentence, set_by_marks
from audit_pipeline.reports.marks_quality import quality_lines
from audit_pipeline.reports.report_summary import Summary, by_risk, summarize
from audit_pipeline.reports.verifier_chain import verifier_chain
from audit_pipeline.scoring.gates import GateResult
from audit_pipeline.scoring.rules import DEFAULT_THRESHOLDS, RiskThresholds

EVIDENCE_SHOWN = 3
EVIDENCE_CHARS = 300

# Characters that open or close inline Markdown wherever they stand: the backslash itself,
# code (`), emphasis and strikethrough (* ~), links and images ([ ]), table cells (|) and
# GitHub's maths ($); ``<`` only where raw HTML or an autolink could start (``< 85%`` stays).
_INLINE = re.compile(r"[\\`*~\[\]|$]|<(?=[A-Za-z/!?])")
# ``_`` inside a word (``vault_bot``) can neither open nor close emphasis, so it stays readable.
_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
# ``&`` only where it would start an entity (``&amp;`` shown as typed); ``R&D`` stays as it is.
_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
# GFM's autolinks, which a backslash does not stop: bare URLs and e-mail addresses.
_AUTOLINK = re.compile(r"(?i)(://|\bwww\.|@)")
# What opens a block at the start of a line: a heading, a quote, a setext underline, a list
# item or a thematic break.
_BLOCK_MARKER = re.compile(r"^([#>=]|[-+](?=\s|$)|-(?=-))")
_ORDERED_MARKER = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")
# Around an error span inside a highlighted claim. Not Markdown syntax anywhere (bold cannot
# nest in bold), so they survive escaping, read the same in a terminal and cannot be forged
# into markup by the text they wrap.
ERROR_OPEN, ERROR_CLOSE = "⟦", "⟧"
DECISION_ICONS = {"deploy": "🟢", "warn": "🟠", "block": "🔴", "incomplete": "⚠️"}


def escape_markdown(text: str | None, *, line_start: bool = False) -> str:
    """``text`` made inert for Markdown: literal characters only, no links, HTML or layout.

    Newlines are kept (callers decide how to lay lines out). Every line that starts a line of
    the output (those after a newline, and the first too when ``line_start``: text placed at
    the start of a block) loses its indentation, so it cannot become a code block, and has a
    leading block marker escaped.
    """
    if not text:
        return ""
    out = _INLINE.sub(lambda m: "\\" + m.group(0), text)
    out = _UNDERSCORE.sub(r"\\_", out)
    out = _ENTITY.sub(r"\\&", out)
    out = _AUTOLINK.sub(lambda m: _entities(m.group(0)), out)
    lines = out.split("\n")
    for i, line in enumerate(lines):
        if i or line_start:
            line = line.lstrip(" \t")
            line = _BLOCK_MARKER.sub(lambda m: "\\" + m.group(0), line)
            lines[i] = _ORDERED_MARKER.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", line)
    return "\n".join(lines)


def _entities(text: str) -> str:
    return "".join(f"&#{ord(c)};" for c in text)


def _table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """``markdown_table`` with cells already shortened and escaped by us (pipes included):
    its own escaping would double our backslashes."""
    return markdown_table(rows, columns, escaped=True)


def _cell(text: str | None, limit: int = 80) -> str:
    """One table cell of untrusted text: flattened, shortened, then escaped."""
    return escape_markdown(excerpt(text or "", limit))


def render_markdown(
    data: ReportData,
    *,
    summary: Mapping[str, Any] | None = None,
    thresholds: RiskThresholds = DEFAULT_THRESHOLDS,
    generated_at: datetime | None = None,
    repeats: Mapping[str, Any] | None = None,
    gates: Sequence[GateResult] = (),
) -> str:
    """The whole report; ``gates`` (the engine's, in their fixed order) go under the decision."""
    figures = summarize(data, summary)
    sections = [
        _header(data, thresholds, gates),
        _summary(data, figures),
        _marks(data),
        _categories(figures, data.previous_audit_id),
        _verdicts(data),
        _trend(data),
        _flakiness(repeats),
        _failures(data.failures),
        _passing(data.passing),
        f"---\n_Generated {when(generated_at or datetime.now(UTC))} from the audit warehouse;"
        " model output is shown as escaped text; inside a **highlighted** claim,"
        f" {ERROR_OPEN}…{ERROR_CLOSE} marks what the evidence does not back._",
    ]
    return "\n\n".join(sections).rstrip() + "\n"


def _marks(data: ReportData) -> str:
    """The verdicts analysts' marks set, and the marks that no longer apply (listed, never
    hidden)."""
    line = marks_sentence(data)
    if not line:
        return ""
    rows = [
        {
            "prompt": escape_markdown(m.prompt_id),
            "claim": _cell(m.claim.text, 120),
            "label": escape_markdown(m.claim.label or DASH),
            "mark": _cell(m.said, 160),
        }
        for m in (*set_by_marks(data), *marks_retired(data))
    ]
    return f"## Set by analysts' marks\n\n{escape_markdown(line)}.\n\n" + _table(
        rows, ["prompt", "claim", "label", "mark"]
    )


def _flakiness(repeats: Mapping[str, Any] | None) -> str:
    if not repeats:
        return ""
    rows = [
        {
            "prompt": escape_markdown(prompt),
            "category": escape_markdown(info.get("category") or DASH),
            "failed runs": f"{info['failed_runs']} / {info['runs']}",
            "class": info["class"],
        }
        for prompt, info in repeats.get("prompts", {}).items()
    ]
    return (
        f"## Flakiness over {repeats['runs']} runs\n\n"
        f"real: failed in at least {repeats['min_fail']} runs; flaky: failed in fewer; "
        "pass: never failed.\n\n" + _table(rows, ["prompt", "category", "failed runs", "class"])
    )


def _gates(data: ReportData, gates: Sequence[GateResult]) -> str:
    """Every gate with its status and detail; the one that set the decision is marked."""
    if not gates:
        return ""
    rows = [
        {
            "gate": row.name,
            "status": row.status,
            "detail": escape_markdown(row.detail)
            + (" ← sets the decision" if row.sets_decision else ""),
        }
        for row in gate_rows(gates, data.audit.decision_rule)
    ]
    return "\n\n" + _table(rows, ["gate", "status", "detail"])


def _header(data: ReportData, thresholds: RiskThresholds, gates: Sequence[GateResult]) -> str:
    audit = data.audit
    score = data.audit_score
    decision = report_decision(data, thresholds) or "pending"
    risk = audit.risk if audit.risk is not None else (score.risk if score else None)
    icon = DECISION_ICONS.get(decision, "⚪")
    rows = [
        {"field": "Audit id", "value": escape_markdown(audit.audit_id)},
        {"field": "Started", "value": when(audit.started_at)},
        {"field": "Status", "value": escape_markdown(audit.status or DASH)},
        {"field": "Target", "value": escape_markdown(audit.target or DASH)},
        {"field": "Suite", "value": escape_markdown(audit.suite or DASH)},
        {"field": "Suite hash", "value": escape_markdown(short_hash(audit.suite_hash))},
        {"field": "Vault hash", "value": escape_markdown(short_hash(audit.vault_hash))},
        {"field": "Config hash", "value": escape_markdown(short_hash(audit.config_hash))},
        {
            "field": "Verifier's chain",
            "value": escape_markdown("; ".join(verifier_chain(data)) or DASH),
        },
        {
            "field": "Verifier on marked claims",
            "value": escape_markdown("; ".join(quality_lines(data.marks_quality))),
        },
        {
            "field": "Retrieval (golden set)",
            "value": escape_markdown(retrieval_line(data.retrieval) or DASH),
        },
    ]
    return (
        f"# Audit report: {escape_markdown(audit.target or 'unknown target')} · "
        f"{escape_markdown(audit.suite or 'unknown suite')}\n\n"
        f"**Decision: {icon} {escape_markdown(decision.upper())}** · risk {num(risk)} "
        f"({thresholds.legend()})\n\n"
        f"{escape_markdown(decision_sentence(decision, audit.decision_rule))}"
        + _gates(data, gates)
        + "\n\n"
        + _table(rows, ["field", "value"])
    )


def _summary(data: ReportData, s: Summary) -> str:
    score = data.audit_score
    rows: list[dict[str, Any]] = [
        {"metric": "Prompts", "value": f"{s.total} ({s.passed} passed, {s.failed} failed)"},
        {"metric": "Pass rate", "value": pct(s.pass_rate)},
        {
            "metric": "Assertions",
            "value": f"{s.assertions_passed} passed, {s.assertions_failed} failed",
        },
        {
            "metric": "Hallucinations (answers with an unsupported, contradicted or stale "
            "claim, or a forbidden string)",
            "value": s.hallucinations,
        },
        {"metric": "Citation errors", "value": s.citation_errors},
        {"metric": "Fallback errors", "value": s.fallback_errors},
        {
            "metric": "Hallucination rate (of answers)",
            "value": f"{pct(s.hallucination_rate)} ({s.hallucinations} of {s.answered})",
        },
        {"metric": "Citation accuracy", "value": pct(score.citation_accuracy if score else None)},
    ]
    return "## Summary\n\n" + _table(rows, ["metric", "value"])


def _categories(s: Summary, previous_audit_id: str | None) -> str:
    rows = []
    for row in by_risk(s.categories):
        score = row.score
        change = (
            f"{row.risk - row.previous_risk:+.3f}"
            if row.risk is not None and row.previous_risk is not None
            else DASH
        )
        rows.append(
            {
                "category": escape_markdown(row.category),
                "prompts": row.total,
                "passed": row.passed,
                "failed": row.failed,
                "pass rate": pct(row.pass_rate, 0),
                "claims": score.claims if score else DASH,
                "unsupported": score.unsupported if score else DASH,
                "contradicted": score.contradicted if score else DASH,
                "risk": num(row.risk),
                "previous risk": num(row.previous_risk),
                "change": change,
            }
        )
    note = (
        f"Previous audit of this target: {escape_markdown(previous_audit_id)}."
        if previous_audit_id
        else "No earlier audit of this target to compare with."
    )
    columns = [
        "category",
        "prompts",
        "passed",
        "failed",
        "pass rate",
        "claims",
        "unsupported",
        "contradicted",
        "risk",
        "previous risk",
        "change",
    ]
    return "## By category\n\n" + _table(rows, columns) + f"\n\n{note}"


def _verdicts(data: ReportData) -> str:
    counts = data.verdict_counts()
    total = sum(counts.values())
    rows = [
        {"verdict": label_text(label), "claims": n, "share": pct(n / total if total else None, 0)}
        for label, n in counts.items()
        if n or label != "pending"
    ]
    return "## Claims by verdict\n\n" + _table(rows, ["verdict", "claims", "share"])


def _trend(data: ReportData) -> str:
    rows = [
        {
            "audit": escape_markdown(p.audit_id) + (" (this audit)" if p.is_current else ""),
            "started": when(p.started_at),
            "risk": num(p.risk),
            "hallucination rate": pct(p.hallucination_rate),
            "decision": escape_markdown(p.decision or DASH),
        }
        for p in reversed(data.trend)
    ]
    columns = ["audit", "started", "risk", "hallucination rate", "decision"]
    return "## Trend for this target\n\n" + _table(rows, columns)


def _slug(heading: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def _failures(failures: Sequence[PromptResult]) -> str:
    if not failures:
        return (
            "## Failures (0)\n\nNo failures: every prompt passed its checks and no claim was"
            " found unsupported or contradicted."
        )
    toc = "\n".join(
        f"{i}. [{escape_markdown(p.prompt_id)}](#{_slug(p.prompt_id)}) · "
        f"{escape_markdown(p.category)} · " + ", ".join(text for _, text in failure_reasons(p))
        for i, p in enumerate(failures, start=1)
    )
    cards = "\n\n".join(_failure(p) for p in failures)
    return f"## Failures ({len(failures)})\n\n{toc}\n\n{cards}"


def _failure(prompt: PromptResult) -> str:
    refs = claim_refs(prompt)
    reasons = ", ".join(text for _, text in failure_reasons(prompt))
    parts = [
        f"### {escape_markdown(prompt.prompt_id)}",
        f"Category **{escape_markdown(prompt.category)}** · {reasons}",
    ]
    many = len(prompt.turns) > 1
    for i, turn in enumerate(prompt.turns, start=1):
        parts.append(_turn(turn, refs, f"Turn {i} of {len(prompt.turns)}" if many else None))
    return "\n\n".join(parts)


def _quote(text: str) -> str:
    """Already-escaped text as a blockquote whose lines keep their breaks."""
    lines = text.split("\n")
    return "\n".join(f"> {line}  " if line.strip() else ">" for line in lines)


def _turn(turn: Turn, refs: Mapping[str, str], heading: str | None) -> str:
    parts: list[str] = []
    if heading:
        parts.append(f"#### {heading}" + ("" if turn.is_failure else " (passed)"))
    expected = (
        f" (expected: {escape_markdown(turn.expected_behavior.replace('_', ' '))})"
        if turn.expected_behavior
        else ""
    )
    prompt = escape_markdown(turn.prompt, line_start=True)
    parts.append(f"**Prompt**{expected}\n\n" + _quote(prompt))
    if turn.error:
        parts.append(f"**No answer:** {escape_markdown(excerpt(turn.error, 300))}")
    if turn.response is not None or not turn.error:
        parts.append("**Response**\n\n" + _quote(_highlighted(turn, refs)))
    claims = sorted(
        (c for c in turn.claims if c.claim_id in refs), key=lambda c: int(refs[c.claim_id][1:])
    )
    if claims:
        parts.append(
            "**Unsupported, contradicted and stale claims**\n\n"
            + "\n\n".join(_claim(c, refs[c.claim_id]) for c in claims)
        )
    if turn.citations:
        rows = []
        for citation in turn.citations:
            status = citation_status(citation, turn.assertions)
            rows.append(
                {
                    "citation": _cell(citation.label, 100),
                    "file": _cell(citation.file),
                    "section": _cell(citation.section),
                    "check": {"ok": "verified", "bad": "FAILED"}.get(status or "", DASH),
                }
            )
        parts.append("**Citations**\n\n" + _table(rows, ["citation", "file", "section", "check"]))
    failed = turn.failed_assertions
    if failed:
        rows = [{"check": _cell(a.assertion, 60), "detail": _cell(a.detail, 160)} for a in failed]
        parts.append("**Failed checks**\n\n" + _table(rows, ["check", "detail"]))
    passed = [a.assertion for a in turn.assertions if a.passed]
    if passed:
        parts.append("Passed checks: " + ", ".join(escape_markdown(name) for name in passed))
    return "\n\n".join(parts)


def _highlighted(turn: Turn, refs: Mapping[str, str]) -> str:
    """Escaped response with hallucinated spans in **bold**, each followed by its ``(C1)``,
    and the claims' error spans inside them between ``⟦…⟧``."""
    text = turn.response or ""
    if not text:
        return "_(empty response)_"
    marks: list[Mark] = []
    errors: list[tuple[int, int]] = []
    for claim in turn.claims:
        ref = refs.get(claim.claim_id)
        placed = place(text, claim.start_char, claim.end_char, claim.text) if ref else None
        if ref and placed:
            marks.append(Mark(placed[0], placed[1], ref, ref, claim.label or ""))
            errors += error_ranges(text, placed, claim.text, claim.error_spans)
    out: list[str] = []
    for lit, piece, closing in runs(_bracketed(segments(text, marks, errors))):
        fresh = not out or out[-1].endswith("\n")
        if not lit:
            out.append(escape_markdown(piece, line_start=fresh))
            continue
        out.append(
            "\n".join(_bold(line, i > 0 or fresh) for i, line in enumerate(piece.split("\n")))
        )
        if closing:
            tags = ", ".join(f"{m.ref} {m.label}" for m in closing)
            out.append(f" _({escape_markdown(tags)})_")
    return "".join(out)


def _bracketed(parts: Sequence[Segment]) -> list[Segment]:
    """``parts`` with each error span's raw text between the error brackets (before escaping,
    which leaves the brackets alone), so offsets never have to be found in escaped text."""
    return [replace(p, text=f"{ERROR_OPEN}{p.text}{ERROR_CLOSE}") if p.error else p for p in parts]


def _bold(line: str, line_start: bool) -> str:
    """Bold one line of a highlight; surrounding spaces stay outside the markers to be valid."""
    core = line.strip()
    if not core:
        return "" if line_start else line
    lead = "" if line_start else line[: len(line) - len(line.lstrip())]
    trail = line[len(line.rstrip()) :]
    return f"{lead}**{escape_markdown(core, line_start=False)}**{trail}"


def _claim_text(claim: Claim) -> str:
    """Raw claim text with its error spans bracketed (spans count from the claim's start)."""
    return "".join(p.text for p in _bracketed(segments(claim.text, (), claim.error_spans)))


def _claim(claim: Claim, ref: str) -> str:
    probability = f" · p = {claim.probability:.2f}" if claim.probability is not None else ""
    who = " · ".join(x for x in (claim.verifier, claim.decided_by) if x)
    lines = [
        f"- **{ref} · {escape_markdown(label_text(claim.label))}**{probability}"
        + (f" · {escape_markdown(who)}" if who else ""),
        f"  - Claim: _{escape_markdown(' '.join(_claim_text(claim).split()))}_",
    ]
    if claim.justification:
        lines.append(f"  - Why: {escape_markdown(plain_justification(claim.justification))}")
    used = set(claim.supporting_chunk_ids)
    for item in claim.evidence[:EVIDENCE_SHOWN]:
        where = escape_markdown(item.document or item.chunk_id)
        if item.section:
            where += f" {CRUMB} {escape_markdown(item.section)}"
        scores = ", ".join(
            part
            for part in (
                f"fused {item.fused_score:.3f}" if item.fused_score is not None else "",
                f"vector {item.vector_score:.3f}" if item.vector_score is not None else "",
                f"BM25 {item.bm25_score:.2f}" if item.bm25_score is not None else "",
            )
            if part
        )
        flag = " · used by verifier" if item.chunk_id in used else ""
        lines.append(
            f"  - Evidence #{item.rank}: {where} ({scores}{flag}): "
            f"{escape_markdown(plain_excerpt(item.text, EVIDENCE_CHARS))}"
        )
    if not claim.evidence:
        lines.append("  - No evidence was retrieved for this claim.")
    for text in claim.superseded_texts:
        lines.append(
            "  - Before the change the vault said: "
            f"{escape_markdown(plain_excerpt(text, EVIDENCE_CHARS))}"
        )
    return "\n".join(lines)


def _passing(passing: Sequence[PromptResult]) -> str:
    rows = [
        {
            "prompt": escape_markdown(p.prompt_id),
            "category": escape_markdown(p.category),
            "turns": len(p.turns),
            "claims": len(p.claims),
            "question": _cell(p.turns[0].prompt, 90),
        }
        for p in passing
    ]
    if not rows:
        return "## Passing prompts (0)\n\nNo prompt passed."
    columns = ["prompt", "category", "turns", "claims", "question"]
    return f"## Passing prompts ({len(rows)})\n\n" + _table(rows, columns)
