"""Analysts' marks as the last stage of the verifier chain: a claim an analyst marked takes the
marked label, for as long as its evidence is the one the mark was given against.

Why a stage, and why one that settles: a mark changes a verdict's label the way any stage
does, so it is declared in the chain (``audit-pipeline verifier`` lists it, ``decided_by``
names it, gates count its label like any other). But marks change without the evidence
changing: a mark made after Monday's audit must apply on Tuesday although Tuesday's verdicts
are carried over from Monday. So the stage reads ``Reads.MARKS`` and the chain runs it in
``settle``, after carry-over, over every verdict of the audit, as it runs the glossary; the
verdict carry-over reuses is always the verifier's own (the warehouse keeps it beside a
marked one), never the mark's.

What the stage is handed (``MarkLookup``) is the live mark on the claim's key (prompt id,
turn, claim text: the latest mark supersedes the earlier ones) and whether the claim's own
evidence set is still the one the mark was given against: the caller compares evidence
digests (``records.marks.evidence_state``). Unchanged evidence: the claim takes the marked
label, the justification names who marked it when, their note and what the verifier had said.
A mark that agrees with the verifier leaves its decision where it was and adds a note (it
sets nothing; the report counts the verdicts marks set). Changed evidence: the verdict keeps
the verifier's label and says the mark no longer applies.
"""

from __future__ import annotations

from audit_pipeline.records.marks import MarkLookup
from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.stages.base import Finding, Reads, Role, Stage, StageParams, stage
from audit_pipeline.verification.stages.cases import ClaimCase
from audit_pipeline.verification.stages.chain import DEFAULT_PROBABILITY

NO_LONGER_APPLIES = "evidence changed since: the mark no longer applies"


class MarkParams(StageParams):
    """The mark stage takes no parameters: what it applies is the analysts' data."""


@stage
class MarkStage(Stage[MarkParams]):
    name = "mark"
    version = "1"
    Params = MarkParams
    reads = Reads.MARKS
    role = Role.REVIEW

    def judge(self, case: ClaimCase) -> Finding | None:
        lookup = case.lookup
        if not isinstance(lookup, MarkLookup):
            return None
        mark = lookup.mark
        said = f"{mark.said()} (mark {mark.mark_id})"
        if not lookup.evidence_unchanged:
            return Finding(None, f"{mark.said()}, {NO_LONGER_APPLIES}.")
        note = f": {mark.note!r}" if mark.note else ""
        label = Label(str(mark.label_marked))
        if case.label is label:
            return Finding(None, f"{said}{note}.")
        before = case.justification or "no justification"
        return Finding(
            label,
            f"{said}{note}. The verifier had said {case.label or 'nothing'} "
            f"(decided by {case.decided_by or 'none'}): {before}",
            DEFAULT_PROBABILITY[label],
        )
