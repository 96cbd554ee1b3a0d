"""The offline verifier: checked facts first, then a small fitted model, no API key needed.

It is the default so an audit can run in CI without network access or spend, and it is fast
enough (tens of claims per second on two cores) to check every claim of a large batch. Checks
that know what changed decide first (``checked_fact``: a specific that clashes or is stated
nowhere, a denied statement, a close rewrite's changed word), because a learned reading of
"quarterly" against "every 12 months" is a guess where a comparison is certain; the rest is
read by the fitted model, and the second stage (judge or reader, see cascade) is needed only
for the claims it is unsure about.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from audit_pipeline.embedding import Embedder, MemoEmbedder, SentenceTransformerEmbedder
from audit_pipeline.records.claims import Claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import HALLUCINATION_LABELS, Label, Verdict
from audit_pipeline.verification.aggregate import response_features
from audit_pipeline.verification.checks.chain import DEFAULT_CHECKS, CheckChain
from audit_pipeline.verification.checks.finding import Finding
from audit_pipeline.verification.checks.rewrite import verbatim
from audit_pipeline.verification.features import Alignment, FeatureBuilder
from audit_pipeline.verification.scorer import LocalModel
from audit_pipeline.verification.specifics_check import Grounding

# The entailment model's contradiction output names the kind of a claim the combined model
# already flags: such a claim is contradicted rather than unsupported. Letting the model's
# reading flag claims on its own was measured on RAGTruth (grouped CV) and lowered response F1
# from 0.66 to 0.55-0.63 (it reads too many faithful abstractive summaries as not entailed),
# so its "not entailed" reading acts only through the combined model.
NLI_CONTRADICTED = 0.5

# ``verdicts.decided_by`` of a verdict no check decided (the checks name themselves, see
# ``checks/``): the learned combination of the alignment features and the cross-encoder.
MODEL = "model"
# ``verdicts.probability`` is p(supported) and reads the same whatever decided the label: a
# hallucination below 0.5, weakly supported from 0.5, supported from 0.75. A checked fact that
# differs is as sure as the check.
WEAK_FROM = 0.5
SUPPORTED_FROM = 0.75
CHECKED_CONTRADICTED = 0.05
CHECKED_UNSUPPORTED = 0.2


@dataclass(frozen=True)
class ResponseAssessment:
    """The verdicts of one response's claims plus the response-level decision.

    ``hallucinated`` is true exactly when some verdict is unsupported or contradicted.
    """

    verdicts: list[Verdict]
    probability: float  # probability that the response contains a hallucination
    hallucinated: bool


class LocalVerifier:
    """Checks each claim against all its evidence, then scores what no check decided.

    ``verify`` judges claims one by one: a checked fact decides the label (``decided_by``
    names the check); otherwise the fitted claim model gives the probability that the claim is
    supported and its thresholds map it to supported / weakly supported / unsupported.
    ``assess`` judges the claims of one response together and is what response-level
    decisions should use (see there). Every probability is reported on one scale
    (``Thresholds.calibrated``), on its label's side of it.
    """

    name = "local"

    def __init__(
        self,
        embedder: Embedder | None = None,
        model: LocalModel | None = None,
        checks: CheckChain | None = None,
    ) -> None:
        self.embedder = MemoEmbedder(embedder or SentenceTransformerEmbedder())
        self.model = model or LocalModel.load()
        self.checks = checks or CheckChain()
        self.version = self.model.version
        if self.checks.names != DEFAULT_CHECKS:
            self.version += "+checks=" + ",".join(self.checks.names)
        self._features = FeatureBuilder(self.embedder)
        self.quality = self.model.quality()

    def align(
        self, claims: Sequence[Claim], evidence: Sequence[Sequence[EvidencePassage]]
    ) -> list[Alignment]:
        """Features of every claim; split from :meth:`decide` so benchmarks can refit cheaply."""
        if len(claims) != len(evidence):
            raise ValueError(f"{len(claims)} claims but {len(evidence)} evidence lists")
        return self._features.align(
            [claim.text for claim in claims],
            [[(p.chunk_id, p.text) for p in passages] for passages in evidence],
        )

    def verify(
        self, claims: Sequence[Claim], evidence: Sequence[Sequence[EvidencePassage]]
    ) -> list[Verdict]:
        return self.decide(self.align(claims, evidence))

    def assess(
        self, claims: Sequence[Claim], evidence: Sequence[Sequence[EvidencePassage]]
    ) -> ResponseAssessment:
        """Verdicts for all claims of ONE response, reconciled with a response-level model."""
        return self.decide_response(self.align(claims, evidence))

    def decide(self, alignments: Sequence[Alignment]) -> list[Verdict]:
        """Per-claim verdicts (``decide_response`` weighs the claims of one answer together)."""
        return [self._final(v, a) for v, a in zip(self._raw(alignments), alignments, strict=True)]

    def _raw(self, alignments: Sequence[Alignment]) -> list[Verdict]:
        """Verdicts whose probability is still the fitted model's own (its thresholds apply)."""
        if not alignments:
            return []
        matrix = np.stack([alignment.vector() for alignment in alignments])
        probabilities = self.model.supported_probability(matrix)
        return [
            self._verdict(alignment, float(p))
            for alignment, p in zip(alignments, probabilities, strict=True)
        ]

    def _final(self, verdict: Verdict, alignment: Alignment) -> Verdict:
        """The probability put on the scale every verdict shares, consistent with its label."""
        probability = self.model.thresholds.calibrated(verdict.probability)
        fact = self.checks.decide(alignment)
        if fact is not None and fact.label is verdict.label:
            cap = CHECKED_CONTRADICTED if fact.label is Label.CONTRADICTED else CHECKED_UNSUPPORTED
            probability = min(probability, cap)
        return replace(verdict, probability=round(_in_band(verdict.label, probability), 4))

    def decide_response(self, alignments: Sequence[Alignment]) -> ResponseAssessment:
        """Response-level calibration.

        The response model looks at all claims at once (the most and the average unexplained
        content, conflicts, length) and decides whether the answer contains a hallucination.
        The claim labels are then made consistent with that decision: in a flagged answer
        the claims below the claim threshold are unsupported (at least the riskiest one is);
        in an answer judged grounded, claims the claim model alone would have flagged are
        reported as weakly supported, unless a hard conflict (a checked number, field or
        polarity that differs) stands; the entailment model's contradiction reading alone is
        softened there too, while a close rewrite that brings in a name the evidence lacks is
        not.
        """
        verdicts = self._raw(alignments)
        hard = [self.checks.decide(a) is not None for a in alignments]
        matrix = (
            np.stack([a.vector() for a in alignments])
            if alignments
            else np.zeros((0, len(self.model.feature_names)))
        )
        probability = self.model.response_probability(response_features(matrix)[None, :])
        flagged = probability >= self.model.thresholds.response
        note = f" Response-level hallucination probability {probability:.2f}"
        if flagged:
            verdicts = [
                v if is_hard else self._within_flagged(v)
                for v, is_hard in zip(verdicts, hard, strict=True)
            ]
            if verdicts and not any(v.label in HALLUCINATION_LABELS for v in verdicts):
                riskiest = min(range(len(verdicts)), key=lambda i: verdicts[i].probability)
                verdicts[riskiest] = replace(
                    verdicts[riskiest],
                    label=Label.UNSUPPORTED,
                    justification=verdicts[riskiest].justification
                    + f"{note}: flagged as the answer's least supported claim.",
                )
        else:
            verdicts = [
                replace(
                    v,
                    label=Label.WEAKLY_SUPPORTED,
                    justification=v.justification + f"{note}: answer judged grounded overall.",
                )
                if v.label in HALLUCINATION_LABELS and not is_hard
                else v
                for v, is_hard in zip(verdicts, hard, strict=True)
            ]
        verdicts = [self._final(v, a) for v, a in zip(verdicts, alignments, strict=True)]
        hallucinated = any(v.label in HALLUCINATION_LABELS for v in verdicts)
        return ResponseAssessment(verdicts, probability, hallucinated)

    def _within_flagged(self, verdict: Verdict) -> Verdict:
        """Inside a flagged answer, point at the claims below the (stricter) span cut."""
        if verdict.label is Label.CONTRADICTED:
            return verdict
        below = verdict.probability < self.model.thresholds.span
        if below and verdict.label is not Label.UNSUPPORTED:
            return replace(verdict, label=Label.UNSUPPORTED)
        if not below and verdict.label is Label.UNSUPPORTED:
            return replace(verdict, label=Label.WEAKLY_SUPPORTED)
        return verdict

    def _verdict(self, alignment: Alignment, probability: float) -> Verdict:
        thresholds = self.model.thresholds
        features = alignment.features
        fact = self.checks.decide(alignment)
        check = MODEL
        if alignment.best_sentence is None:
            label = Label.UNSUPPORTED
        elif fact is not None:
            label, check = fact.label, fact.check
            probability = min(probability, thresholds.unsupported - 1e-6)
        elif (
            probability < thresholds.unsupported
            and _nli_contradicts(features)
            and not verbatim(alignment)
        ):
            label = Label.CONTRADICTED
        elif probability < thresholds.unsupported:
            label = Label.UNSUPPORTED
        elif probability < thresholds.weak:
            label = Label.WEAKLY_SUPPORTED
        else:
            label = Label.SUPPORTED
        return Verdict(
            label=label,
            probability=probability,
            justification=justify(alignment, label, fact),
            supporting_chunk_ids=(fact.chunk_ids if fact else ()) or alignment.supporting_chunk_ids,
            verifier=self.name,
            verifier_version=self.version,
            decided_by=check,
            error_spans=error_spans(alignment),
        )


def _in_band(label: Label, probability: float) -> float:
    """``probability`` moved into its label's band (a response-level decision can move a
    claim across a threshold its own probability did not cross)."""
    if label is Label.SUPPORTED:
        return max(probability, SUPPORTED_FROM)
    if label is Label.WEAKLY_SUPPORTED:
        return min(max(probability, WEAK_FROM), SUPPORTED_FROM - 0.01)
    return min(probability, WEAK_FROM - 0.01)


def error_spans(alignment: Alignment) -> tuple[tuple[int, int], ...]:
    """Where in the claim the numbers and names the evidence lacks, and the words a close
    rewrite changed, are (claim-relative)."""
    spans = {(edit.start, edit.end) for edit in alignment.rewrite}
    spans.update(
        (f.specific.start, f.specific.end)
        for f in alignment.specifics
        if f.status is not Grounding.GROUNDED
    )
    for text in (*alignment.unseen_quantities, *alignment.unseen_names):
        start = alignment.claim.lower().find(text.lower())
        if text and start >= 0:
            spans.add((start, start + len(text)))
    return tuple(sorted(spans))


def _nli_contradicts(features: dict[str, float]) -> bool:
    return (
        features["nli_contradicted"] >= NLI_CONTRADICTED
        and features["nli_unsupported"] >= 1 - NLI_CONTRADICTED
    )


def justify(alignment: Alignment, label: Label | None = None, fact: Finding | None = None) -> str:
    """A short human-readable account of the alignment, for the report: first the check that
    decided the label (``fact``), when a check did."""
    best = alignment.best_sentence
    if best is None:
        return "No evidence passages were retrieved for this claim."
    features = alignment.features
    snippet = best.text if len(best.text) <= 160 else best.text[:157] + "..."
    parts = (
        []
        if fact is None or fact.label is not label
        else [f"{fact.label.value.capitalize()} ({fact.check}): {fact.reason}"]
    )
    parts += [
        f"Closest evidence ({best.chunk_id}): {snippet!r}",
        f"similarity {features['cos_max']:.2f}, "
        f"content words found in evidence {features['lex_all']:.0%}",
    ]
    if alignment.unseen_quantities:
        parts.append("numbers not in evidence: " + ", ".join(alignment.unseen_quantities))
    if alignment.unseen_names:
        parts.append("names not in evidence: " + ", ".join(alignment.unseen_names))
    parts.append(
        f"entailment model: entailed {1 - features['nli_unsupported']:.2f}, "
        f"contradicted {features['nli_contradicted']:.2f}"
    )
    if alignment.conflicts:
        parts.append("conflicts: " + "; ".join(alignment.conflicts))
    if alignment.notes:
        parts.append("; ".join(alignment.notes))
    return ". ".join(parts) + "."
