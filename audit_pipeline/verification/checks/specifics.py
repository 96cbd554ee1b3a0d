"""Numbers, dates, names and identifiers of the claim compared with the evidence about the same
thing (``verification/specifics_check.py`` finds them): a differing value contradicts the claim,
a value stated nowhere leaves it unsupported."""

from __future__ import annotations

from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.checks.finding import Finding
from audit_pipeline.verification.features import Alignment
from audit_pipeline.verification.specifics_check import Grounding


class SpecificsCheck:
    name = "specifics"

    def find(self, alignment: Alignment) -> Finding | None:
        clashes = alignment.specifics_with(Grounding.CLASH)
        if clashes:
            chunks = tuple(dict.fromkeys(f.chunk_id for f in clashes if f.chunk_id))
            reason = "; ".join(f.describe() for f in clashes)
            return Finding(Label.CONTRADICTED, self.name, reason, chunks)
        absent = alignment.specifics_with(Grounding.ABSENT)
        if absent:
            reason = "; ".join(f.describe() for f in absent)
            return Finding(Label.UNSUPPORTED, self.name, reason)
        return None
