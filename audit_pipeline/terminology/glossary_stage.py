"""The glossary as a stage of the verifier chain: a definitional claim is checked against the
terminology source (``checker.py`` says which claims are definitions and how they are looked up).

An unknown term makes the claim ``unsupported`` (``terminology_not_found``), a lookup that timed
out ``unverifiable`` ("unverified terminology"), a definition that shares too few words with the
glossary's ``unsupported`` (``definition_mismatch``); a label shared by several concepts is
noted as ambiguous. It reads the glossary's lookups (``Reads.GLOSSARY``), so the chain runs it
over every verdict of an audit, carried over or not: a remote glossary can change while the
evidence does not. Registered as a plugin would be, through this project's entry point.
"""

from __future__ import annotations

from pydantic import Field

from audit_pipeline.records.verdicts import Label
from audit_pipeline.terminology.checker import (
    MIN_DEFINITION_OVERLAP,
    MISMATCH,
    NOT_FOUND,
    UNVERIFIED,
    definition_overlap,
)
from audit_pipeline.terminology.lookup import TermLookup
from audit_pipeline.verification.stages.base import (
    Finding,
    Reads,
    Role,
    Stage,
    StageParams,
)
from audit_pipeline.verification.stages.cases import ClaimCase

GROUNDED = (Label.SUPPORTED, Label.WEAKLY_SUPPORTED)


class GlossaryParams(StageParams):
    # The share of the words a claim defines a term with that the glossary's definition must
    # also use, for a grounded claim to stay grounded.
    min_definition_overlap: float = Field(default=MIN_DEFINITION_OVERLAP, ge=0.0, le=1.0)


class GlossaryStage(Stage[GlossaryParams]):
    name = "glossary"
    version = "1"
    Params = GlossaryParams
    reads = Reads.GLOSSARY
    role = Role.REVIEW

    def judge(self, case: ClaimCase) -> Finding | None:
        lookup = case.lookup
        if not isinstance(lookup, TermLookup):
            return None
        params = self.params
        if lookup.status == "miss":
            return Finding(
                Label.UNSUPPORTED,
                f"{NOT_FOUND}: {lookup.term!r} is not in the terminology source; "
                "its definition cannot be verified",
                0.0,
                (),
            )
        if lookup.status == "timeout":
            return Finding(
                Label.UNVERIFIABLE, f"{UNVERIFIED}: {lookup.detail or 'lookup failed'}", 0.5, ()
            )
        found: Finding | None = None
        if lookup.concepts and case.label in GROUNDED:
            overlap = definition_overlap(case.text, lookup.concepts)
            if overlap < params.min_definition_overlap:
                found = Finding(
                    Label.UNSUPPORTED,
                    f"{MISMATCH}: the claim defines {lookup.term!r} differently from the "
                    f"terminology source ({overlap:.0%} of its words in the definition)",
                    round(min(case.probability or 0.0, overlap), 4),
                    (),
                )
        if lookup.status == "ambiguous":
            names = "; ".join(f"{c.term} ({c.concept_id})" for c in lookup.concepts)
            note = f"ambiguous term {lookup.term!r}: {len(lookup.concepts)} concepts ({names})"
            if found is not None:
                return Finding(found.label, f"{note}. {found.explanation}", found.probability, ())
            return Finding(None, f"{note}.")
        return found
