"""What the chain hands its stages: one claim, or the claims of one answer, with what earlier
stages decided and the batch's analyses of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from audit_pipeline.records.claims import Claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.usage import LLMUsage
from audit_pipeline.records.verdict_provenance import ClaimKey
from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.batch import Batch, History

T = TypeVar("T")


def join_explanations(parts: Iterable[str]) -> str:
    """The parts of a justification as sentences: "A. B" for "A" and "B", "A. B" for "A." too."""
    text = ""
    for part in parts:
        if not part:
            continue
        if not text:
            text = part
        else:
            text += (" " if text.endswith((".", "!", "?")) else ". ") + part
    return text


@dataclass
class ClaimState:
    """What the stages so far made of one claim (the chain turns it into the verdict)."""

    label: Label | None = None
    probability: float | None = None
    decided_by: str | None = None
    decided_as: str | None = None  # the deciding stage's role
    explanation: list[str] = field(default_factory=list)
    evidence_ids: tuple[str, ...] | None = None
    error_spans: frozenset[tuple[int, int]] = frozenset()
    usage: LLMUsage = field(default_factory=LLMUsage)
    superseded_ids: tuple[str, ...] = ()
    answer_suspect: bool = False


@dataclass(frozen=True)
class ClaimCase:
    """One claim as a stage sees it: its text, evidence, what earlier stages decided, and the
    batch's analyses of it. ``history`` and ``lookup`` are set for the stages that read them."""

    batch: Batch
    index: int
    state: ClaimState
    history: History | None = None
    lookup: Any = None

    @property
    def claim(self) -> Claim:
        return self.batch.claims[self.index]

    @property
    def text(self) -> str:
        return self.batch.claims[self.index].text

    @property
    def evidence(self) -> tuple[EvidencePassage, ...]:
        return self.batch.evidence[self.index]

    @property
    def label(self) -> Label | None:
        return self.state.label

    @property
    def probability(self) -> float | None:
        return self.state.probability

    @property
    def decided_by(self) -> str | None:
        return self.state.decided_by

    @property
    def justification(self) -> str:
        return join_explanations(self.state.explanation)

    @property
    def key(self) -> ClaimKey | None:
        return self.batch.claim_key(self.index)

    def analysis(self, compute: Callable[[Batch], list[T]]) -> T:
        return self.batch.analysis(compute)[self.index]


@dataclass
class AnswerCase:
    """The claims of one answer as an answer stage sees them (``claims[i]`` is a ClaimCase).
    The stage may set ``hallucination_probability``: whether the answer as a whole holds a
    hallucination, which the service and the benchmarks report."""

    claims: list[ClaimCase]
    hallucination_probability: float | None = None
