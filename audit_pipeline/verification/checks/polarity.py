"""A claim that denies what the evidence asserts, or asserts what it denies, or changes what
must, may or need not be done (``verification/polarity.py`` compares the clauses)."""

from __future__ import annotations

from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.checks.finding import Finding
from audit_pipeline.verification.features import Alignment


class PolarityCheck:
    name = "polarity"

    def find(self, alignment: Alignment) -> Finding | None:
        found = alignment.polarity
        if found is None:
            return None
        return Finding(Label.CONTRADICTED, self.name, found.describe(), (found.chunk_id,))
