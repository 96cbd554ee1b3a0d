"""The learned reading: a small fitted model labels what no check decided, weighing the claims
of one answer together.

Two logistic regressions (``verification/scorer.py``, fitted by ``python -m
benchmarks.train_verifier``) read the alignment features of each claim (``features.py``:
similarity, uncovered words, numbers and names the evidence lacks, the entailment model's
reading) and of the whole answer. A claim's p(supported) under the claim model's cut points
labels it; the entailment model's contradiction output names the kind of a claim the model
already flags (contradicted rather than unsupported). Letting that reading flag claims on its
own lowered RAGTruth response F1 from 0.66 to 0.55-0.63 (it reads many faithful abstractive
summaries as not entailed), so it acts through the fitted model.

The answer model then decides whether the answer holds a hallucination, and the claim labels
are made consistent with it: in a flagged answer the claims below the stricter span cut are
unsupported; where none is, the answer is *suspect* (``Verdict.answer_suspect`` on its least
supported claim, whose label stays: a response-level flag for a reader or an analyst, never a
claim label); in an answer judged grounded, claims the claim model alone would have flagged
are weakly supported. Claims a check decided keep their
label; the model only lowers their probability.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import Field

from audit_pipeline.records.verdicts import HALLUCINATION_LABELS, Label
from audit_pipeline.verification.aggregate import response_features
from audit_pipeline.verification.entailment import entailment_files
from audit_pipeline.verification.features import Alignment, alignment_analysis, verbatim
from audit_pipeline.verification.scorer import DEFAULT_MODEL_PATH, LocalModel
from audit_pipeline.verification.specifics_check import (
    Grounding,
    SpecificFinding,
    specifics_analysis,
)
from audit_pipeline.verification.stages.base import (
    Finding,
    Reads,
    Role,
    Stage,
    StageParams,
    StageResources,
    stage,
)
from audit_pipeline.verification.stages.cases import AnswerCase

# ``verdicts.probability`` is p(supported) and reads the same whatever decided the label: a
# hallucination below 0.5, weakly supported from 0.5, supported from 0.75.
WEAK_FROM = 0.5
SUPPORTED_FROM = 0.75


class ModelParams(StageParams):
    # A fitted model file (``local_model.json`` format); None: the one this package ships.
    model: Path | None = None
    # Weigh the claims of an answer together (the answer model); False labels each claim by
    # the claim model alone (how the pair-set benchmarks read single claims).
    answer_level: bool = True
    # The entailment model's contradiction (and non-entailment) probability from which a
    # claim the fitted model flags is contradicted rather than unsupported.
    nli_contradicted: float = Field(default=0.5, ge=0.0, le=1.0)


@dataclass
class _Reading:
    label: Label
    probability: float  # the fitted model's own p(supported): its cut points apply
    decided: bool  # an earlier stage decided the label
    justification: str
    suspect: bool = False  # the least supported claim of an answer read as hallucinated


@stage
class LearnedModel(Stage[ModelParams]):
    name = "model"
    version = "1"
    Params = ModelParams
    reads = Reads.ANSWER
    role = Role.READING

    def __init__(
        self,
        params: ModelParams | None = None,
        resources: StageResources | None = None,
        model: LocalModel | None = None,
    ) -> None:
        super().__init__(params, resources)
        self.model = model or LocalModel.load(self.params.model or DEFAULT_MODEL_PATH)

    def files(self) -> dict[str, str]:
        return {f"{self.model.version}.json": self.model.digest(), **entailment_files()}

    def judge_answer(self, answer: AnswerCase) -> list[Finding | None]:
        cases = answer.claims
        alignments = [case.analysis(alignment_analysis) for case in cases]
        matrix = (
            np.stack([a.vector() for a in alignments])
            if alignments
            else np.zeros((0, len(self.model.feature_names)))
        )
        inputs = [ReadingInput.of(a, case.label) for case, a in zip(cases, alignments, strict=True)]
        readings, probability = read_answer(
            self.model, self.params, inputs, matrix, [justify(a) for a in alignments]
        )
        if probability is not None:
            answer.hallucination_probability = probability
        findings: list[Finding | None] = []
        for case, alignment, reading in zip(cases, alignments, readings, strict=True):
            probability = self.model.thresholds.calibrated(reading.probability)
            if reading.decided and case.probability is not None:
                probability = min(probability, case.probability)
            probability = round(_in_band(reading.label, probability), 4)
            spans = error_spans(alignment, case.analysis(specifics_analysis))
            if reading.decided:
                findings.append(
                    Finding(
                        None,
                        reading.justification,
                        probability,
                        None,
                        spans,
                        answer_suspect=reading.suspect,
                    )
                )
            else:
                findings.append(
                    Finding(
                        reading.label,
                        reading.justification,
                        probability,
                        alignment.supporting_chunk_ids,
                        spans,
                        answer_suspect=reading.suspect,
                    )
                )
        return findings


@dataclass(frozen=True)
class ReadingInput:
    """What the fitted model's labelling reads of one claim besides its feature vector: the
    label an earlier stage decided, whether any evidence was found, the entailment model's
    contradiction reading and whether the claim repeats its evidence word for word. Kept as
    plain values so ``audit-pipeline calibrate`` can replay the labelling of stored features
    with another fitted model (``read_answer``), exactly as the stage labels."""

    decided: Label | None
    has_evidence: bool
    nli_contradicted: float
    nli_unsupported: float
    verbatim: bool

    @classmethod
    def of(cls, alignment: Alignment, decided: Label | None) -> ReadingInput:
        return cls(
            decided,
            alignment.best_sentence is not None,
            float(alignment.features["nli_contradicted"]),
            float(alignment.features["nli_unsupported"]),
            verbatim(alignment),
        )


def read_answer(
    model: LocalModel,
    params: ModelParams,
    inputs: Sequence[ReadingInput],
    matrix: np.ndarray,
    texts: Sequence[str] | None = None,
) -> tuple[list[_Reading], float | None]:
    """The fitted model's reading of one answer's claims (``matrix``: their feature rows):
    each claim's label and p(supported), made consistent with the answer model's decision
    when ``params.answer_level``; returns the readings and that decision's probability."""
    supported = model.supported_probability(matrix) if len(inputs) else np.zeros(0)
    readings = [
        _reading(model, params, given, float(p), texts[i] if texts else "")
        for i, (given, p) in enumerate(zip(inputs, supported, strict=True))
    ]
    if not params.answer_level:
        return readings, None
    probability = model.response_probability(response_features(matrix)[None, :])
    _reconcile(model, readings, probability)
    return readings, probability


def _reading(
    model: LocalModel, params: ModelParams, given: ReadingInput, probability: float, text: str
) -> _Reading:
    """The claim model's label (for a claim no earlier stage decided) and probability."""
    thresholds = model.thresholds
    decided = given.decided
    if decided is not None:
        if decided in HALLUCINATION_LABELS:
            probability = min(probability, thresholds.unsupported - 1e-6)
        return _Reading(decided, probability, True, text)
    cut = params.nli_contradicted
    contradicts = given.nli_contradicted >= cut and given.nli_unsupported >= 1 - cut
    if not given.has_evidence:
        label = Label.UNSUPPORTED
    elif probability < thresholds.unsupported and contradicts and not given.verbatim:
        label = Label.CONTRADICTED
    elif probability < thresholds.unsupported:
        label = Label.UNSUPPORTED
    elif probability < thresholds.weak:
        label = Label.WEAKLY_SUPPORTED
    else:
        label = Label.SUPPORTED
    return _Reading(label, probability, False, text)


def _reconcile(model: LocalModel, readings: list[_Reading], probability: float) -> None:
    """Claim labels made consistent with the answer model's decision (module docstring)."""
    thresholds = model.thresholds
    note = f" Response-level hallucination probability {probability:.2f}"
    free = [r for r in readings if not r.decided]
    if probability >= thresholds.response:
        for reading in free:
            below = reading.probability < thresholds.span
            if reading.label is Label.CONTRADICTED:
                continue
            if below and reading.label is not Label.UNSUPPORTED:
                reading.label = Label.UNSUPPORTED
            elif not below and reading.label is Label.UNSUPPORTED:
                reading.label = Label.WEAKLY_SUPPORTED
        if readings and not any(r.label in HALLUCINATION_LABELS for r in readings):
            # No claim shows what the answer model reads: the answer is suspect, its least
            # supported claim names it, and every claim keeps its own label.
            riskiest = min(readings, key=lambda r: r.probability)
            riskiest.suspect = True
            riskiest.justification += (
                f"{note}, shown by no claim: the answer is flagged for review; this is its "
                "least supported claim."
            )
    else:
        for reading in free:
            if reading.label in HALLUCINATION_LABELS:
                reading.label = Label.WEAKLY_SUPPORTED
                reading.justification += f"{note}: answer judged grounded overall."


def _in_band(label: Label, probability: float) -> float:
    """``probability`` moved into its label's band (an answer-level decision can move a claim
    across a threshold its own probability did not cross)."""
    if label is Label.SUPPORTED:
        return max(probability, SUPPORTED_FROM)
    if label is Label.WEAKLY_SUPPORTED:
        return min(max(probability, WEAK_FROM), SUPPORTED_FROM - 0.01)
    return min(probability, WEAK_FROM - 0.01)


def error_spans(
    alignment: Alignment, specifics: tuple[SpecificFinding, ...]
) -> tuple[tuple[int, int], ...]:
    """Where in the claim the numbers and names the evidence lacks, and the words a close
    rewrite changed, are (claim-relative)."""
    spans = {(edit.start, edit.end) for edit in alignment.rewrite}
    spans.update(
        (f.specific.start, f.specific.end) for f in specifics if f.status is not Grounding.GROUNDED
    )
    for text in (*alignment.unseen_quantities, *alignment.unseen_names):
        start = alignment.claim.lower().find(text.lower())
        if text and start >= 0:
            spans.add((start, start + len(text)))
    return tuple(sorted(spans))


def justify(alignment: Alignment) -> str:
    """A short account of the alignment for the report: the closest evidence, how much of the
    claim it covers, what it lacks and what the entailment model reads."""
    best = alignment.best_sentence
    if best is None:
        return "No evidence passages were retrieved for this claim."
    features = alignment.features
    snippet = best.text if len(best.text) <= 160 else best.text[:157] + "..."
    parts = [
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
