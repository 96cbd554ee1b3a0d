"""The verifier: its stages in the configured order, run over whole answers.

Each stage sees what the stages before it decided and may return a finding per claim; the
chain combines them by the stages' roles (``base.Role``) and turns the result into verdicts.
A claim no stage decided is ``unverifiable`` (a chain without a deciding stage says so
instead of passing claims nobody read).

The chain's identity is a digest of its stages' names, versions, parameters and model files
(``digest``, the key the measured figures are kept under) plus the code they run
(``identity``, part of every verdict key): change any of them and no earlier verdict is
carried over.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from audit_pipeline.embedding import Embedder, MemoEmbedder
from audit_pipeline.records.claims import Claim
from audit_pipeline.records.verdicts import Label, Verdict
from audit_pipeline.verification.batch import Answer, Batch, History
from audit_pipeline.verification.stages.base import Finding, Reads, Role, Stage
from audit_pipeline.verification.stages.cases import (
    AnswerCase,
    ClaimCase,
    ClaimState,
    join_explanations,
)
from audit_pipeline.verification.stages.measured import measured_figures
from audit_pipeline.verification.verdict import AnswerVerdicts

# p(supported) of a decision whose stage gave none, and nothing earlier did (a chain without
# the learned reading): the middle of each label's band on the verdict scale.
DEFAULT_PROBABILITY = {
    Label.SUPPORTED: 0.9,
    Label.WEAKLY_SUPPORTED: 0.6,
    Label.UNSUPPORTED: 0.2,
    Label.CONTRADICTED: 0.05,
    Label.STALE: 0.05,
    Label.UNVERIFIABLE: 0.5,
}
UNDECIDED = "no stage of the verifier chain decided this claim"
NOT_MEASURED = "figures not measured for this chain"


def apply_finding(state: ClaimState, finding: Finding, stage: Stage) -> None:
    """Fold one stage's finding into what is known of a claim.

    A finding with a label decides: it replaces the label, the explanation, the error spans
    and (when it names them) the evidence, and the stage becomes ``decided_by``. A reading (no
    label) adds its explanation and error spans, names the evidence when nothing did, and sets
    the probability when it gives one. LLM usage adds up.
    """
    if finding.label is not None:
        state.label = finding.label
        state.decided_by = stage.name
        state.decided_as = str(stage.role)
        state.explanation = [finding.explanation]
        state.error_spans = frozenset(finding.error_spans)
        if finding.probability is None and state.probability is None:
            state.probability = DEFAULT_PROBABILITY[finding.label]
        if finding.evidence_ids is not None:
            state.evidence_ids = finding.evidence_ids
    else:
        state.explanation.append(finding.explanation)
        state.error_spans |= frozenset(finding.error_spans)
        if state.evidence_ids is None:
            state.evidence_ids = finding.evidence_ids
    if finding.probability is not None:
        state.probability = finding.probability
    if finding.usage is not None:
        state.usage = state.usage + finding.usage
    if finding.superseded_ids:
        state.superseded_ids = finding.superseded_ids
    state.answer_suspect = state.answer_suspect or finding.answer_suspect


def chain_digest(stages: Sequence[Stage], with_code: bool) -> str:
    """A digest of the stages' names, versions, parameters and model files (and, with
    ``with_code``, of the code they run)."""
    payload = [
        [
            s.name,
            s.version,
            s.params.model_dump(mode="json"),
            s.files(),
            s.fingerprint() if with_code else "",
        ]
        for s in stages
    ]
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class VerifierChain:
    """The configured stages, in order; implements the ``Verifier`` protocol."""

    def __init__(
        self, stages: Sequence[Stage], embedder: Embedder | None = None, name: str = "local"
    ) -> None:
        names = [s.name for s in stages]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"each stage once in a chain; repeated: {', '.join(repeated)}")
        self.stages = tuple(stages)
        self.embedder = (
            embedder
            if embedder is None or isinstance(embedder, MemoEmbedder)
            else MemoEmbedder(embedder)
        )
        self.name = name
        self.digest = chain_digest(self.stages, with_code=False)
        self.identity = chain_digest(self.stages, with_code=True)
        self.version = self.identity
        figures = measured_figures(self.digest)
        self.quality = str(figures["summary"]) if figures else NOT_MEASURED

    def describe(self) -> list[dict[str, Any]]:
        return [s.describe() for s in self.stages]

    def batch(self, answers: Sequence[Answer]) -> Batch:
        return Batch(answers, self.embedder)

    def verify_answers(
        self, answers: Sequence[Answer], history: History | None = None
    ) -> list[AnswerVerdicts]:
        return self.verify_batch(self.batch(answers), history)

    def verify_batch(self, batch: Batch, history: History | None = None) -> list[AnswerVerdicts]:
        """The verdicts of every answer of ``batch``; analyses already on it are reused (a
        benchmark runs several chains over one batch)."""
        states = [ClaimState() for _ in batch.claims]
        answer_probability: list[float | None] = [None] * len(batch.answers)
        for stage in self.stages:
            if stage.reads.settles or (stage.reads is Reads.HISTORY and history is None):
                continue
            if stage.reads is Reads.ANSWER:
                findings: list[Finding | None] = []
                for number, answer in enumerate(batch.answers):
                    start = batch.starts[number]
                    case = AnswerCase(
                        [
                            ClaimCase(batch, i, states[i])
                            for i in range(start, start + len(answer.claims))
                        ]
                    )
                    found = stage.judge_answer(case)
                    if len(found) != len(answer.claims):
                        raise ValueError(f"stage {stage.name!r} gave {len(found)} findings")
                    findings.extend(found)
                    if case.hallucination_probability is not None:
                        answer_probability[number] = case.hallucination_probability
            else:
                cases = [
                    ClaimCase(batch, i, state, history=history) for i, state in enumerate(states)
                ]
                findings = stage.judge_claims(cases)
            for state, finding in zip(states, findings, strict=True):
                if finding is not None:
                    apply_finding(state, finding, stage)
        verdicts = [
            self._verdict(state, partial(_original_span, batch, i))
            for i, state in enumerate(states)
        ]
        return [
            AnswerVerdicts(verdicts[start : start + len(answer.claims)], answer_probability[number])
            for number, (answer, start) in enumerate(zip(batch.answers, batch.starts, strict=True))
        ]

    def settle(
        self,
        claims: Sequence[Claim],
        verdicts: Sequence[Verdict],
        inputs: Mapping[str, Mapping[int, Any]],
    ) -> list[Verdict]:
        """``verdicts`` after the stages that settle (``Reads.settles``), in chain order,
        each fed ``inputs[its reads]`` (keyed by ``Reads``) by claim index: the glossary's
        lookup of the term a claim defines, the analysts' live mark on its claim key. Run over
        every verdict of an audit, carried over or fresh (and the glossary on every
        validation); a claim no such stage speaks about keeps its verdict as it was."""
        settling = [s for s in self.stages if s.reads.settles and inputs.get(s.reads)]
        if not settling:
            return list(verdicts)
        batch = self.batch([Answer.of(claims, [() for _ in claims])])
        states = [state_of(v) for v in verdicts]
        changed: set[int] = set()
        for stage in settling:
            for index, lookup in inputs[stage.reads].items():
                finding = stage.judge(ClaimCase(batch, index, states[index], lookup=lookup))
                if finding is not None:
                    apply_finding(states[index], finding, stage)
                    changed.add(index)
        return [
            self._verdict(state) if index in changed else verdicts[index]
            for index, state in enumerate(states)
        ]

    def _verdict(
        self,
        state: ClaimState,
        to_original: Callable[[tuple[int, int]], tuple[int, int]] = lambda span: span,
    ) -> Verdict:
        label = state.label or Label.UNVERIFIABLE
        probability = state.probability
        if probability is None:
            probability = DEFAULT_PROBABILITY[label]
        usage = state.usage
        return Verdict(
            label=label,
            probability=probability,
            justification=join_explanations(state.explanation) or UNDECIDED,
            supporting_chunk_ids=state.evidence_ids or (),
            verifier=self.name,
            verifier_version=self.version,
            decided_by=state.decided_by or "none",
            judge_calls=usage.calls,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            cost_usd=usage.cost_usd,
            error_spans=tuple(sorted({to_original(span) for span in state.error_spans})),
            superseded_chunk_ids=state.superseded_ids,
            answer_suspect=state.answer_suspect,
        )


def _original_span(batch: Batch, index: int, span: tuple[int, int]) -> tuple[int, int]:
    return batch.original_span(index, *span)


def state_of(verdict: Verdict) -> ClaimState:
    """A finished verdict as the state a later stage continues from."""
    return ClaimState(
        label=verdict.label,
        probability=verdict.probability,
        decided_by=verdict.decided_by,
        decided_as=str(Role.REVIEW),
        explanation=[verdict.justification],
        evidence_ids=verdict.supporting_chunk_ids,
        error_spans=frozenset(verdict.error_spans),
        usage=verdict.usage,
        superseded_ids=verdict.superseded_chunk_ids,
        answer_suspect=verdict.answer_suspect,
    )
