"""The verifier protocol: what every surface (audit, service, guardrail, benchmarks) calls.

One call verifies whole answers, because some stages weigh the claims of an answer together
(the learned reading's answer-level model): a surface that verified claims one by one would
get other verdicts than the audit. The verdict record itself lives in ``records.verdicts``, so
storage and scoring read verdicts without importing this stage.
"""

from __future__ import annotations

import json
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

    @property
    def suspect(self) -> bool:
        """The answer model reads a hallucination no claim's label shows."""
        return any(v.answer_suspect for v in self.verdicts)


@runtime_checkable
class Verifier(Protocol):
    """Judges the claims of answers against their evidence.

    ``verify_answers`` returns one ``AnswerVerdicts`` per answer, in order. ``history`` (a
    batch audit's memory of earlier verdicts) lets the stages that read it run; without it they
    are skipped. ``settle`` runs the stages that read what can change while the evidence does
    not (the glossary's lookups, analysts' marks; by claim index) over finished verdicts.
    ``describe`` lists the stages (name, version, parameters); ``quality`` says how well this
    verifier was measured, in words.
    """

    name: str
    version: str
    quality: str

    def verify_answers(
        self, answers: Sequence[Answer], history: History | None = None
    ) -> list[AnswerVerdicts]: ...

    def settle(
        self,
        claims: Sequence[Claim],
        verdicts: Sequence[Verdict],
        inputs: Mapping[str, Mapping[int, Any]],
    ) -> list[Verdict]: ...

    def describe(self) -> list[dict[str, Any]]: ...


def chain_json(verifier: Verifier) -> str:
    """The verifier as an audit row keeps it (``audits.verifier_chain``): name, version (the
    chain's identity), the figures measured for it, and its stages."""
    return json.dumps(
        {
            "name": verifier.name,
            "version": verifier.version,
            "quality": verifier.quality,
            "stages": verifier.describe(),
        },
        sort_keys=True,
    )


def verify_answer(
    verifier: Verifier,
    claims: Sequence[Claim],
    evidence: Sequence[Sequence[EvidencePassage]],
) -> AnswerVerdicts:
    """The verdicts of one answer's ``claims`` (``evidence[i]`` for ``claims[i]``)."""
    from audit_pipeline.verification.batch import Answer

    return verifier.verify_answers([Answer.of(claims, evidence)])[0]


def stages_line(stages: Sequence[Mapping[str, Any]]) -> str:
    """The stages of a chain in one line, in the order they run: "specifics 1 · polarity 1"."""
    return " · ".join(f"{s['name']} {s['version']}" for s in stages)
