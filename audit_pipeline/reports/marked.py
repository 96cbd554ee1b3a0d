"""The verdicts analysts' marks set in this audit, and the marks that no longer apply, as the
report lists them: a suppressed false alarm is shown, never hidden.

A verdict a mark set has ``decided_by = mark``; one whose mark no longer applies (the vault
evidence under its claim changed since) keeps the verifier's label and says so in its
justification (``stages/mark.py``). Both come from the verdict rows, so the report shows what
the gates counted.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit_pipeline.records.marks import marks_phrase
from audit_pipeline.reports.data import Claim, ReportData
from audit_pipeline.verification.stages.mark import NO_LONGER_APPLIES

MARK = "mark"


@dataclass(frozen=True)
class MarkedClaim:
    prompt_id: str
    claim: Claim
    said: str  # what the mark says: who marked it what, when, and the note


def _said(justification: str | None) -> str:
    text = justification or ""
    cut = text.find(" The verifier had said")
    return text[:cut] if cut >= 0 else text


def _retired(justification: str | None) -> str:
    text = justification or ""
    end = text.find(NO_LONGER_APPLIES)
    start = text.rfind("marked ", 0, end)
    start = text.rfind("confirmed ", 0, end) if start < 0 else start
    return text[max(start, 0) : end + len(NO_LONGER_APPLIES)] if end >= 0 else ""


def set_by_marks(data: ReportData) -> list[MarkedClaim]:
    """The claims whose verdict an analyst's mark set, in prompt order."""
    return [
        MarkedClaim(p.prompt_id, c, _said(c.justification))
        for p in data.prompts
        for c in p.claims
        if c.decided_by == MARK
    ]


def marks_retired(data: ReportData) -> list[MarkedClaim]:
    """The claims whose mark no longer applies because their evidence changed."""
    return [
        MarkedClaim(p.prompt_id, c, _retired(c.justification))
        for p in data.prompts
        for c in p.claims
        if c.decided_by != MARK and NO_LONGER_APPLIES in (c.justification or "")
    ]


def marks_sentence(data: ReportData) -> str:
    """ "2 verdicts set by analysts' marks (1 mark no longer applies: evidence changed)"; ""
    when no mark touched the audit."""
    return marks_phrase(len(set_by_marks(data)), len(marks_retired(data)))
