"""Local verifier first, LLM judge only where the local verifier is unsure.

Judging every claim with an LLM is slow and costs money; most claims are clearly grounded or
clearly not. The band of local "probability supported" in which a claim is sent to the judge
is the knob that trades judge calls for accuracy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from audit_pipeline.claims.claim import Claim
from audit_pipeline.evidence.passages import EvidencePassage
from audit_pipeline.verification.verdict import Label, Verdict, Verifier


def default_band(local: Verifier) -> tuple[float, float]:
    """Around the local verifier's own decision threshold when it has one.

    For the shipped local model (unsupported below ~0.89, weakly supported below ~0.94) this
    sends claims between ``unsupported - 0.3`` and the weak threshold to the judge: the ones
    the local verdict could flip on. Claims it is sure about either way stay local.
    """
    thresholds = getattr(getattr(local, "model", None), "thresholds", None)
    if thresholds is None:
        return (0.35, 0.9)
    return (max(0.0, thresholds.unsupported - 0.3), thresholds.weak)


class CascadeVerifier:
    """Runs ``local`` on all claims and ``judge`` on those with local probability in ``band``.

    ``band`` is inclusive on both ends; by default it is :func:`default_band` of ``local``.
    When the judge cannot decide (``unverifiable`` from a failed call), the local verdict
    stands and its justification says the judge failed. Judged claims carry the judge's
    tokens and cost either way, local-only ones carry none: the sum over an audit is what the
    cascade spent, and its judge calls against the claim count are what it saved.
    """

    name = "cascade"

    def __init__(
        self, local: Verifier, judge: Verifier, band: tuple[float, float] | None = None
    ) -> None:
        low, high = band if band is not None else default_band(local)
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
            replace(v, verifier=self.name, verifier_version=self.version, decided_by="local")
            for v in self.local.verify(claims, evidence)
        ]
        low, high = self.band
        uncertain = [i for i, v in enumerate(verdicts) if low <= v.probability <= high]
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
            verdicts[i] = replace(
                verdict, verifier=self.name, verifier_version=self.version, decided_by="judge"
            )
        return verdicts
