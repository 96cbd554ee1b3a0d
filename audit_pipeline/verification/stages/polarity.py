"""A claim that denies what the evidence asserts, or asserts what it denies, or changes what
must, may or need not be done (``verification/polarity.py`` compares the clauses)."""

from __future__ import annotations

from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.polarity import polarity_analysis
from audit_pipeline.verification.stages.base import stage
from audit_pipeline.verification.stages.cases import ClaimCase
from audit_pipeline.verification.stages.check import Check, CheckParams, Flaw


@stage
class PolarityCheck(Check[CheckParams]):
    name = "polarity"
    version = "2"

    def find(self, case: ClaimCase) -> Flaw | None:
        found = case.analysis(polarity_analysis).contrary
        if found is None:
            return None
        return Flaw(Label.CONTRADICTED, found.describe(), (found.chunk_id,))
