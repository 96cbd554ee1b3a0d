"""The checks: stages that compare what a claim states with its evidence and decide when they
find something wrong.

A check is certain where a learned reading guesses ("quarterly" against "every 12 months" is a
comparison, not a matter of similarity), so its finding decides the label whatever the model
reads; the model still reads the claim and its probability can only lower the check's. Every
check is asked; a contradiction outranks a missing fact (a claim that states a wrong deadline
and also names a vendor the vault never mentions is contradicted), and among findings of the
same label the check listed first names the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from pydantic import Field

from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.stages.base import Finding, Role, Stage, StageParams
from audit_pipeline.verification.stages.cases import ClaimCase


class CheckParams(StageParams):
    """How far a claim a check decided can be trusted: its p(supported) is at most this."""

    contradicted_probability: float = Field(default=0.05, ge=0.0, lt=0.5)
    unsupported_probability: float = Field(default=0.2, ge=0.0, lt=0.5)


@dataclass(frozen=True)
class Flaw:
    """What a check found wrong with a claim: the label it calls for, why, and the chunks it
    rests on (empty: those the learned reading aligned the claim with)."""

    label: Label
    reason: str
    chunk_ids: tuple[str, ...] = ()


CP = TypeVar("CP", bound=CheckParams)


class Check(Stage[CP]):
    """A check: ``find`` says what is wrong with a claim (or None); the base class decides
    whether the finding names the verdict (see the module docstring) and at what probability."""

    role = Role.CHECK
    Params = CheckParams

    def find(self, case: ClaimCase) -> Flaw | None:
        raise NotImplementedError

    def judge(self, case: ClaimCase) -> Finding | None:
        flaw = self.find(case)
        if flaw is None or not _outranks(flaw.label, case):
            return None
        cap = (
            self.params.contradicted_probability
            if flaw.label is Label.CONTRADICTED
            else self.params.unsupported_probability
        )
        return Finding(
            flaw.label,
            f"{flaw.label.value.capitalize()} ({self.name}): {flaw.reason}",
            probability=cap,
            evidence_ids=flaw.chunk_ids or None,
        )


def _outranks(label: Label, case: ClaimCase) -> bool:
    """Whether a check's ``label`` replaces what earlier stages decided: anything but an
    earlier check's finding, which only a contradiction outranks (over a missing fact)."""
    if case.state.decided_as != Role.CHECK:
        return True
    return case.label is Label.UNSUPPORTED and label is Label.CONTRADICTED
