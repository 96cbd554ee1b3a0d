"""The slot-by-slot checks (issue 31): a claim that keeps the evidence's words but bounds a value
from the other side or places an act on the other side of an event (``direction``:
``verification/bounds.py``), obliges where the evidence permits (``modality``), names another
party as the one who acts (``agent``: both ``verification/structure.py``), drops the evidence's
condition (``condition``) or says of every case what it says of some (``scope``: both
``verification/scope.py``). Each is its own check, so ``decided_by`` says which slot decided."""

from __future__ import annotations

from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.bounds import direction_analysis
from audit_pipeline.verification.scope import scope_analysis
from audit_pipeline.verification.slot_clash import SlotClash
from audit_pipeline.verification.stages.base import stage
from audit_pipeline.verification.stages.cases import ClaimCase
from audit_pipeline.verification.stages.check import Check, CheckParams, Flaw
from audit_pipeline.verification.structure import structure_analysis


def _contradiction(found: SlotClash | None) -> Flaw | None:
    """A slot the evidence fills otherwise contradicts the claim, on the chunk that says so."""
    if found is None:
        return None
    return Flaw(Label.CONTRADICTED, found.describe(), (found.chunk_id,))


@stage
class DirectionCheck(Check[CheckParams]):
    name = "direction"
    version = "2"

    def find(self, case: ClaimCase) -> Flaw | None:
        return _contradiction(case.analysis(direction_analysis))


@stage
class ModalityCheck(Check[CheckParams]):
    name = "modality"
    version = "2"

    def find(self, case: ClaimCase) -> Flaw | None:
        return _contradiction(case.analysis(structure_analysis).modality)


@stage
class AgentCheck(Check[CheckParams]):
    name = "agent"
    version = "1"

    def find(self, case: ClaimCase) -> Flaw | None:
        return _contradiction(case.analysis(structure_analysis).agent)


@stage
class ConditionCheck(Check[CheckParams]):
    name = "condition"
    version = "1"

    def find(self, case: ClaimCase) -> Flaw | None:
        return _contradiction(case.analysis(scope_analysis).condition)


@stage
class ScopeCheck(Check[CheckParams]):
    name = "scope"
    version = "2"

    def find(self, case: ClaimCase) -> Flaw | None:
        return _contradiction(case.analysis(scope_analysis).scope)
