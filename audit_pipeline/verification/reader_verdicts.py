"""A downloaded reader as the cascade's second stage: verdicts from ``detection.reader``.

The local verifier's checks settle what rules can see (a value, a name, a denial); what is left
uncertain is a matter of meaning (a reversed direction, a dropped condition, an added clause),
which needs a model that reads. When the user has downloaded a stronger reader than the one
this package ships, the cascade asks it instead of an LLM judge: offline, and at no cost.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit_pipeline.records.claims import Claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import Label, Verdict
from audit_pipeline.verification.reader import Reader
from audit_pipeline.verification.windows import claim_window, evidence_sentences

READER = "reader"
# Words of evidence put before the reader: a downloaded NLI model reads up to 512 tokens.
WINDOW_WORDS = 300
SUPPORTED_FROM = 0.75
WEAK_FROM = 0.5


class ReaderVerifier:
    """Verdicts from a reader's reading of each claim against its claim-focused evidence."""

    name = READER

    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self.version = f"{reader.name}:{reader.version}"

    def verify(
        self, claims: Sequence[Claim], evidence: Sequence[Sequence[EvidencePassage]]
    ) -> list[Verdict]:
        windows = [
            claim_window(c.text, evidence_sentences([p.text for p in ps]), WINDOW_WORDS)
            for c, ps in zip(claims, evidence, strict=True)
        ]
        scores = self.reader.read([(w, c.text) for w, c in zip(windows, claims, strict=True)])
        out = []
        for passages, entailed, contradicted in zip(
            evidence, scores.entailed, scores.contradicted, strict=True
        ):
            label = _label(float(entailed), float(contradicted))
            out.append(
                Verdict(
                    label=label,
                    probability=round(float(entailed), 4),
                    justification=(
                        f"{label.value.capitalize()} ({READER}): {self.reader.name} reads the "
                        f"evidence as entailing the claim {entailed:.2f}, contradicting it "
                        f"{contradicted:.2f}."
                    ),
                    supporting_chunk_ids=tuple(p.chunk_id for p in passages[:2]),
                    verifier=self.name,
                    verifier_version=self.version,
                    decided_by=READER,
                )
            )
        return out


def _label(entailed: float, contradicted: float) -> Label:
    if contradicted >= WEAK_FROM and contradicted > entailed:
        return Label.CONTRADICTED
    if entailed >= SUPPORTED_FROM:
        return Label.SUPPORTED
    if entailed >= WEAK_FROM:
        return Label.WEAKLY_SUPPORTED
    return Label.UNSUPPORTED
