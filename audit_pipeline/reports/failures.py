"""What a failure card of the HTML report shows; ``templates/failures.html.j2`` lays it out.

A card is where a reviewer checks a verdict, so it carries everything behind it: the prompt,
the response with the unsupported and contradicted spans highlighted, each such claim with its
label, probability, justification and top evidence, the citations with their check result, and
the failed checks with their details. This module decides which claims, in which order, where
their highlights fall and how each citation fared; the template escapes every piece of text
on its own, so a highlight never builds markup from model text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from audit_pipeline.reports.data import Claim, Evidence, PromptResult, Turn
from audit_pipeline.reports.formatting import CRUMB, citation_status, claim_refs, failure_reasons
from audit_pipeline.reports.highlight_spans import Mark, Segment, error_ranges, place, segments

EVIDENCE_SHOWN = 3
EVIDENCE_CHARS = 320
_SLUG = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Piece:
    """A run of the response under the same claims; error spans split it into ``parts``.

    ``label`` is the class of its highlight (None: not highlighted), ``closing`` the claims
    whose reference mark follows it.
    """

    parts: tuple[Segment, ...]
    label: str | None
    title: str
    closing: tuple[Mark, ...]


@dataclass(frozen=True)
class Chip:
    """One citation of a turn: ``status`` is ``ok``, ``bad`` or empty (the checks do not say)."""

    status: str
    word: str
    label: str


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


def claim_key(anchor: str, ref: str) -> str:
    """The in-page anchor of a claim, linked from its reference mark in the response."""
    return f"{anchor}-{ref.lower()}"


def highlighted(turn: Turn, refs: Mapping[str, str], anchor: str) -> list[Piece]:
    """The response in pieces: hallucinated claim spans highlighted and, nested in them, the
    claims' error spans (empty for an empty response)."""
    text = turn.response or ""
    marks: list[Mark] = []
    errors: list[tuple[int, int]] = []
    for claim in turn.claims:
        ref = refs.get(claim.claim_id)
        placed = place(text, claim.start_char, claim.end_char, claim.text) if ref else None
        if ref and placed:
            marks.append(Mark(placed[0], placed[1], ref, claim_key(anchor, ref), claim.label or ""))
            errors += error_ranges(text, placed, claim.text, claim.error_spans)
    pieces: list[Piece] = []
    # Error spans split a claim's segment in pieces with the same claims: one <mark> holds them.
    for covering, group in groupby(segments(text, marks, errors), key=lambda s: s.marks):
        parts = tuple(group)
        title = ", ".join(f"{m.ref} {m.label}" for m in covering)
        pieces.append(Piece(parts, parts[0].label, title, parts[-1].closing))
    return pieces


def claim_parts(claim: Claim) -> list[Segment]:
    """The claim's own text cut at its error spans, for the claim's quote under the response."""
    return segments(claim.text, (), claim.error_spans)


def flagged_claims(turn: Turn, refs: Mapping[str, str]) -> list[tuple[Claim, str]]:
    """The turn's hallucinated claims with their references, in reference order."""
    claims = [(c, refs[c.claim_id]) for c in turn.claims if c.claim_id in refs]
    return sorted(claims, key=lambda item: int(item[1][1:]))


def score_text(item: Evidence) -> str:
    parts = [
        f"fused {item.fused_score:.3f}" if item.fused_score is not None else None,
        f"vector {item.vector_score:.3f}" if item.vector_score is not None else None,
        f"BM25 {item.bm25_score:.2f}" if item.bm25_score is not None else None,
    ]
    return " · ".join(p for p in parts if p)


def citation_chips(turn: Turn) -> list[Chip]:
    chips = []
    for citation in turn.citations:
        status = citation_status(citation, turn.assertions) or ""
        label = citation.file or citation.label
        if citation.file and citation.section:
            label = f"{citation.file} {CRUMB} {citation.section}"
        chips.append(Chip(status, {"ok": "verified", "bad": "failed"}.get(status, ""), label))
    return chips


def helpers() -> dict[str, Any]:
    """What ``failures.html.j2`` calls, for the render context."""
    return {
        "EVIDENCE_CHARS": EVIDENCE_CHARS,
        "EVIDENCE_SHOWN": EVIDENCE_SHOWN,
        "citation_chips": citation_chips,
        "claim_key": claim_key,
        "claim_parts": claim_parts,
        "claim_refs": claim_refs,
        "failure_reasons": failure_reasons,
        "flagged_claims": flagged_claims,
        "highlighted": highlighted,
        "score_text": score_text,
    }
