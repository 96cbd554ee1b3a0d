"""The verifier protocol: what every surface (audit, service, guardrail, benchmarks) calls.

One call verifies whole answers, because some stages weigh the claims of an answer together
(the learned reading's answer-level model): a surface that verified claims one by one would
get other verdicts than the audit. The verdict record itself lives in ``records.verdicts``, so
storage and scoring read verdicts without importing this stage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from audit_pipeline.records.claims import Claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import HALLUCINATION_LABELS, Verdict

if TYPE_CHECKING:
    from audit_pipeline.verification.batch import Answer, History


@dataclass(frozen=True)
class AnswerVerdicts:
    """The verdicts of one answer's claims, in order, and the probability that the answer holds
    a hallucination when a stage estimates it (the learned reading does; None otherwise)."""

    verdicts: list[Verdict]
    hallucination_probability: float | None = None

    @property
    def hallucinated(self) -> bool:
        return any(v.label in HALLUCINATION_LABELS for v in self.verdicts)


@runtime_checkable
class Verifier(Protocol):
    """Judges the claims of answers against their evidence.

    ``verify_answers`` returns one ``AnswerVerdicts`` per answer, in order. ``history`` (a
    batch audit's memory of earlier verdicts) lets the stages that read it run; without it they
    are skipped. ``settle`` runs the stages that read the glossary's lookups (by claim index)
    over finished verdicts. ``quality`` says how well this verifier was measured, in words.
    """

    name: str
    version: str
    quality: str

    def verify_answers(
        self, answers: Sequence[Answer], history: History | None = None
    ) -> list[AnswerVerdicts]: ...

    def settle(
        self, claims: Sequence[Claim], verdicts: Sequence[Verdict], lookups: Mapping[int, Any]
    ) -> list[Verdict]: ...


def verify_answer(
    verifier: Verifier,
    claims: Sequence[Claim],
    evidence: Sequence[Sequence[EvidencePassage]],
) -> AnswerVerdicts:
    """The verdicts of one answer's ``claims`` (``evidence[i]`` for ``claims[i]``)."""
    from audit_pipeline.verification.batch import Answer

    return verifier.verify_answers([Answer.of(claims, evidence)])[0]
