"""Numbers, dates, names and identifiers of the claim compared with the evidence about the same
thing (``verification/specifics_check.py``): a differing value contradicts the claim, a value
stated nowhere (in the evidence nor, for names, identifiers and full dates, anywhere in the
vault) leaves it unsupported."""

from __future__ import annotations

from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.specifics_check import Grounding, specifics_analysis
from audit_pipeline.verification.stages.base import stage
from audit_pipeline.verification.stages.cases import ClaimCase
from audit_pipeline.verification.stages.check import Check, CheckParams, Flaw


@stage
class SpecificsCheck(Check[CheckParams]):
    name = "specifics"
    version = "3"

    def find(self, case: ClaimCase) -> Flaw | None:
        findings = case.analysis(specifics_analysis)
        clashes = [f for f in findings if f.status is Grounding.CLASH]
        if clashes:
            chunks = tuple(dict.fromkeys(f.chunk_id for f in clashes if f.chunk_id))
            return Flaw(Label.CONTRADICTED, "; ".join(f.describe() for f in clashes), chunks)
        absent = [f for f in findings if f.status is Grounding.ABSENT]
        if absent:
            return Flaw(Label.UNSUPPORTED, "; ".join(f.describe() for f in absent))
        return None
