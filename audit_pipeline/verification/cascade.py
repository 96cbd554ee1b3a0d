"""Local verifier first, a second reader only where the local verifier is unsure.

Judging every claim with an LLM is slow and costs money; most claims are clearly grounded or
clearly not. A claim the local verifier's checks decided (a value, name or identifier that
clashes with the evidence or is stated nowhere, a denial, a changed word of a close rewrite) is
settled: asking again would only pay for a second opinion on a checked fact. The rest, whose
specifics are grounded and whose reading the learned model is unsure of (probability in the
band), go to the second stage: the LLM judge, or a reader the user downloaded
(``detection.reader``). The band is the knob that trades judge calls for accuracy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from audit_pipeline.records.claims import Claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import Label, Verdict
from audit_pipeline.verification.verdict import Verifier

# Around p(supported) 0.5, the local verifier's cut between unsupported and weakly supported.
DEFAULT_BAND = (0.35, 0.65)
# ``decided_by`` of a local verdict that the learned model's reading decided (no check did).
READING = "model"
# ``decided_by`` of a verdict the second stage decided.
SECOND_STAGE = frozenset({"judge", "reader"})


class CascadeVerifier:
    """Runs ``local`` on all claims and ``judge`` on those with local probability in ``band``.

    ``band`` is inclusive on both ends (``DEFAULT_BAND`` by default). Only verdicts the local
    verifier's learned reading decided (``decided_by`` "model") are sent.
    When the judge cannot decide (``unverifiable`` from a failed call), the local verdict
    stands and its justification says the judge failed. Judged claims carry the judge's
    tokens and cost either way, local-only ones carry none: the sum over an audit is what the
    cascade spent, and its judge calls against the claim count are what it saved.
    """

    name = "cascade"

    def __init__(
        self, local: Verifier, judge: Verifier, band: tuple[float, float] | None = None
    ) -> None:
        low, high = band if band is not None else DEFAULT_BAND
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError(f"band must satisfy 0 <= low <= high <= 1, got {band}")
        self.local = local
        self.judge = judge
        self.band = (low, high)
        self.version = f"{local.name}:{local.version}+{judge.name}:{judge.version}"
        self.quality = f"local part: {getattr(local, 'quality', '') or 'not measured'}"

    def verify(
        self, claims: Sequence[Claim], evidence: Sequence[Sequence[EvidencePassage]]
    ) -> list[Verdict]:
        verdicts = [
            replace(v, verifier=self.name, verifier_version=self.version)
            for v in self.local.verify(claims, evidence)
        ]
        low, high = self.band
        uncertain = [
            i
            for i, v in enumerate(verdicts)
            if v.decided_by == READING and low <= v.probability <= high
        ]
        if not uncertain:
            return verdicts
        judged = self.judge.verify([claims[i] for i in uncertain], [evidence[i] for i in uncertain])
        for i, verdict in zip(uncertain, judged, strict=True):
            if verdict.label is Label.UNVERIFIABLE:
                # The local verdict stands, but the judge calls were made and are charged to it.
                verdicts[i] = replace(
                    verdicts[i],
                    justification=f"{verdicts[i].justification} Judge: {verdict.justification}",
                ).with_usage(verdict.usage)
                continue
            verdicts[i] = replace(verdict, verifier=self.name, verifier_version=self.version)
        return verdicts
