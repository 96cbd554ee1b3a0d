"""The failures part of the HTML report: a table of contents and one card per failing prompt.

A card is where a reviewer checks a verdict, so it carries everything behind it: the prompt,
the response with the unsupported and contradicted spans highlighted, each such claim with its
label, probability, justification and top evidence, the citations with their check result, and
the failed checks with their details. All of it is model or vault text and is escaped piece by
piece; highlighting escapes each segment between span boundaries on its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from itertools import groupby

from audit_pipeline.reports.data import AssertionResult, Claim, Evidence, PromptResult, Turn
from audit_pipeline.reports.formatting import (
    CRUMB,
    citation_status,
    claim_refs,
    esc,
    failure_reasons,
    label_text,
    plain_excerpt,
)
from audit_pipeline.reports.highlight_spans import Mark, Segment, error_ranges, place, segments

e = esc
EVIDENCE_SHOWN = 3
EVIDENCE_CHARS = 320
_SLUG = re.compile(r"[^A-Za-z0-9_-]+")


def anchors_for(prompts: Iterable[PromptResult]) -> dict[str, str]:
    """A unique, attribute-safe anchor per prompt id (ids from suites may hold anything)."""
    anchors: dict[str, str] = {}
    used: set[str] = set()
    for prompt in prompts:
        base = "p-" + (_SLUG.sub("-", prompt.prompt_id).strip("-") or "prompt")
        anchor, n = base, 2
        while anchor in used:
            anchor, n = f"{base}-{n}", n + 1
        used.add(anchor)
        anchors[prompt.prompt_id] = anchor
    return anchors


def _reason_tags(prompt: PromptResult) -> str:
    return "".join(
        f'<span class="tag {e(css)}">{e(text)}</span>' for css, text in failure_reasons(prompt)
    )


def failures_section(failures: Sequence[PromptResult], anchors: Mapping[str, str]) -> str:
    if not failures:
        return (
            '<section id="failures"><h2>Failures <span class="count">0</span></h2>'
            '<div class="empty">✓ No failures: every prompt passed its checks and no claim was'
            " found unsupported or contradicted.</div></section>"
        )
    toc = "".join(
        f'<li><a class="id" href="#{e(anchors[p.prompt_id])}">{e(p.prompt_id)}</a>'
        f'<span class="muted">{e(p.category)}</span>'
        f'<span class="why">{_reason_tags(p)}</span></li>'
        for p in failures
    )
    cards = "".join(_failure_card(p, anchors[p.prompt_id]) for p in failures)
    return (
        f'<section id="failures"><h2>Failures <span class="count">{len(failures)}</span></h2>'
        '<p class="muted">Prompts with a failed check or a claim the vault does not support.</p>'
        f'<ol class="toc">{toc}</ol>{cards}</section>'
    )


def _failure_card(prompt: PromptResult, anchor: str) -> str:
    refs = claim_refs(prompt)
    many = len(prompt.turns) > 1
    turns = "".join(
        _turn_html(turn, refs, anchor, f"Turn {i} of {len(prompt.turns)}" if many else None)
        for i, turn in enumerate(prompt.turns, start=1)
    )
    return (
        f'<article class="prompt-card" id="{e(anchor)}"><header>'
        f"<h3>{e(prompt.prompt_id)}</h3>"
        f'<span class="tag">{e(prompt.category)}</span>{_reason_tags(prompt)}'
        '<a class="top" href="#failures">↑ failures</a></header>'
        f"{turns}</article>"
    )


def _turn_html(turn: Turn, refs: Mapping[str, str], anchor: str, heading: str | None) -> str:
    parts = ['<div class="turn">']
    if heading:
        status = " · passed" if not turn.is_failure else ""
        parts.append(f'<div class="turn-head">{e(heading)}{status}</div>')
    expected = (
        f' <span class="muted" style="text-transform:none;letter-spacing:0">expected: '
        f"{e(turn.expected_behavior.replace('_', ' '))}</span>"
        if turn.expected_behavior
        else ""
    )
    parts.append(f'<div class="lbl">Prompt{expected}</div>')
    parts.append(f'<p class="prompt-text">{e(turn.prompt)}</p>')
    parts.append('<div class="lbl">Response</div>')
    if turn.error:
        parts.append(f'<p class="response error">No answer: {e(turn.error)}</p>')
    if turn.response is not None or not turn.error:
        parts.append(f'<p class="response">{_highlighted(turn, refs, anchor)}</p>')
    claims = sorted((c for c in turn.claims if c.claim_id in refs), key=lambda c: _order(refs, c))
    if claims:
        parts.append('<div class="lbl">Unsupported and contradicted claims</div>')
        items = "".join(_claim_html(c, refs[c.claim_id], anchor) for c in claims)
        parts.append(f'<div class="claims">{items}</div>')
    if turn.citations:
        parts.append('<div class="lbl">Citations</div>')
        parts.append(_citations_html(turn))
    if turn.confidence is not None:
        parts.append(
            f'<div class="lbl">Confidence {e(f"{turn.confidence:.2f}")} · '
            f"{e(turn.recommendation or '')} · {e(turn.citation_class or 'no claims')}</div>"
        )
    parts.append(_checks_html(turn.assertions))
    parts.append("</div>")
    return "".join(parts)


def _order(refs: Mapping[str, str], claim: Claim) -> int:
    return int(refs[claim.claim_id][1:])


def _claim_key(anchor: str, ref: str) -> str:
    return f"{anchor}-{ref.lower()}"


def _highlighted(turn: Turn, refs: Mapping[str, str], anchor: str) -> str:
    """The response with hallucinated claim spans in ``<mark>`` and, nested in them, the
    claims' error spans; each piece escaped alone."""
    text = turn.response or ""
    marks: list[Mark] = []
    errors: list[tuple[int, int]] = []
    for claim in turn.claims:
        ref = refs.get(claim.claim_id)
        placed = place(text, claim.start_char, claim.end_char, claim.text) if ref else None
        if ref and placed:
            marks.append(
                Mark(placed[0], placed[1], ref, _claim_key(anchor, ref), claim.label or "")
            )
            errors += error_ranges(text, placed, claim.text, claim.error_spans)
    out: list[str] = []
    # Error spans split a claim's segment in pieces with the same claims: one <mark> holds them.
    for covering, group in groupby(segments(text, marks, errors), key=lambda s: s.marks):
        parts = list(group)
        piece = _with_errors(parts)
        if covering:
            title = ", ".join(f"{m.ref} {m.label}" for m in covering)
            piece = f'<mark class="{e(parts[0].label)}" title="{e(title)}">{piece}</mark>'
        for mark in parts[-1].closing:
            piece += f'<sup class="ref"><a href="#{e(mark.key)}">{e(mark.ref)}</a></sup>'
        out.append(piece)
    return "".join(out) or '<span class="muted">(empty response)</span>'


def _with_errors(parts: Sequence[Segment]) -> str:
    """Escaped text of ``parts``, error spans in a nested mark so they stand out in a claim."""
    return "".join(
        f'<mark class="error-span">{e(p.text)}</mark>' if p.error else e(p.text) for p in parts
    )


def _claim_html(claim: Claim, ref: str, anchor: str) -> str:
    label = claim.label or ""
    probability = (
        f'<span class="muted">p = {claim.probability:.2f}</span>'
        if claim.probability is not None
        else ""
    )
    who = " · ".join(x for x in (claim.verifier, claim.decided_by) if x)
    used = set(claim.supporting_chunk_ids)
    evidence = "".join(
        _evidence_html(item, item.chunk_id in used) for item in claim.evidence[:EVIDENCE_SHOWN]
    )
    more = len(claim.evidence) - EVIDENCE_SHOWN
    evidence_block = (
        f'<ul class="evidence">{evidence}</ul>'
        + (f'<div class="passed-note">+ {more} more passages retrieved</div>' if more > 0 else "")
        if claim.evidence
        else '<div class="passed-note">No evidence was retrieved for this claim.</div>'
    )
    justification = (
        f'<p class="justification"><strong>Why:</strong> {e(claim.justification)}</p>'
        if claim.justification
        else ""
    )
    return (
        f'<div class="claim {e(label)}" id="{e(_claim_key(anchor, ref))}">'
        f'<div class="claim-head"><span class="ref">{e(ref)}</span>'
        f'<span class="tag {e(label)}">{e(label_text(claim.label))}</span>{probability}'
        f'<span class="muted" style="margin-left:auto;font-size:12px">{e(who)}</span></div>'
        f'<p class="claim-text">“{_with_errors(segments(claim.text, (), claim.error_spans))}”</p>'
        f"{justification}"
        f'<div class="lbl" style="margin-top:4px">Top evidence</div>{evidence_block}</div>'
    )


def _score_text(item: Evidence) -> str:
    parts = [
        f"fused {item.fused_score:.3f}" if item.fused_score is not None else None,
        f"vector {item.vector_score:.3f}" if item.vector_score is not None else None,
        f"BM25 {item.bm25_score:.2f}" if item.bm25_score is not None else None,
    ]
    return " · ".join(p for p in parts if p)


def _evidence_html(item: Evidence, used: bool) -> str:
    where = f'<span class="src">{e(item.document or item.chunk_id)}</span>'
    if item.section:
        where += f'<span class="sep">{CRUMB}</span>{e(item.section)}'
    flags = '<span class="used">used by verifier</span>' if used else ""
    if item.fallback_mode:
        flags += '<span class="tag" style="margin-left:6px">fallback retrieval</span>'
    return (
        f'<li><span class="scores">#{item.rank} · {e(_score_text(item))}</span>{where}{flags}'
        f'<span class="excerpt">{e(plain_excerpt(item.text, EVIDENCE_CHARS))}</span></li>'
    )


def _citations_html(turn: Turn) -> str:
    chips = []
    for citation in turn.citations:
        status = citation_status(citation, turn.assertions)
        word = {"ok": "verified", "bad": "failed"}.get(status or "", "")
        label = citation.file or citation.label
        if citation.file and citation.section:
            label = f"{citation.file} {CRUMB} {citation.section}"
        chips.append(
            f'<span class="cite {e(status or "")}">'
            + (f'<span class="st">{e(word)}</span>' if word else "")
            + f"{e(label)}</span>"
        )
    return f'<div class="citations">{"".join(chips)}</div>'


def _checks_html(assertions: Sequence[AssertionResult]) -> str:
    if not assertions:
        return '<div class="passed-note">No checks recorded for this turn.</div>'
    failed = [a for a in assertions if not a.passed]
    passed = [a for a in assertions if a.passed]
    html = ""
    if failed:
        rows = "".join(
            f'<tr><td class="res bad-text">✗ failed</td><td class="name">{e(a.assertion)}</td>'
            f"<td>{e(a.detail or '')}</td></tr>"
            for a in failed
        )
        html += (
            '<div class="lbl">Failed checks</div>'
            f'<div class="table-wrap checks"><table><tbody>{rows}</tbody></table></div>'
        )
    if passed:
        names = ", ".join(e(a.assertion) for a in passed)
        html += f'<div class="passed-note"><span class="ok-text">✓</span> Passed: {names}</div>'
    return html
