"""Superseded facts: a contradicted claim that an earlier vault state supported, through a
passage the vault no longer holds, is ``stale`` (``verification/staleness.py`` says why it is
a label of its own). Reads the audit's memory of earlier verdicts, so it runs in batch audits."""

from __future__ import annotations

from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.stages.base import Finding, Reads, Role, Stage, StageParams, stage
from audit_pipeline.verification.stages.cases import ClaimCase
from audit_pipeline.verification.staleness import superseded_by


@stage
class StalenessStage(Stage[StageParams]):
    name = "staleness"
    version = "1"
    reads = Reads.HISTORY
    role = Role.REVIEW

    def judge(self, case: ClaimCase) -> Finding | None:
        if case.history is None or case.key is None or case.label is not Label.CONTRADICTED:
            return None
        found = superseded_by(case.history, case.key)
        if found is None:
            return None
        before, superseded = found
        return Finding(
            Label.STALE,
            f"Superseded: vault state {before.vault_state[:12]} supported this claim; "
            f"the changed document now contradicts it. {case.justification}",
            error_spans=tuple(case.state.error_spans),
            superseded_ids=superseded,
        )
