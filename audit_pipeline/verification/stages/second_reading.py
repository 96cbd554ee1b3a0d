"""A second reader for the claims the learned reading is unsure of: an LLM judge, or a model the
user downloaded (``detection.reader``).

Judging every claim with an LLM is slow and costs money; most claims are clearly grounded or
clearly not. A claim a check decided is settled: asking again would only pay for a second
opinion on a checked fact. The claims the learned reading labelled with a p(supported) in the
band go to the second reader, and so do those of an answer the learned reading flags as suspect
(its answer-level model reads a hallucination no claim shows); ``claims: all`` sends every
claim (the ``llm`` verifier). The band is the knob that trades judge calls for accuracy. When
the judge cannot decide (a failed call is ``unverifiable``), the earlier verdict stands and its
justification says the judge failed; the calls are charged to the claim either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol

from pydantic import model_validator

from audit_pipeline.records.claims import Claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import Label, Verdict
from audit_pipeline.verification.stages.base import (
    Finding,
    Role,
    Stage,
    StageParams,
    StageResources,
    stage,
)
from audit_pipeline.verification.stages.cases import ClaimCase

# Around p(supported) 0.5, the learned reading's cut between unsupported and weakly supported.
DEFAULT_BAND = (0.35, 0.65)
# ``decided_by`` of a verdict a second reader decided.
SECOND_STAGE = frozenset({"judge", "reader"})


class ClaimReader(Protocol):
    """Reads claims against their evidence one verdict each (the LLM judge, a reader model)."""

    name: str
    version: str

    def verify(
        self, claims: Sequence[Claim], evidence: Sequence[Sequence[EvidencePassage]]
    ) -> list[Verdict]: ...


class SecondReadingParams(StageParams):
    # Claims labelled by a reading stage with p(supported) in this band (inclusive) are read
    # again; ``claims: all`` reads every claim whatever decided it.
    band: tuple[float, float] = DEFAULT_BAND
    claims: Literal["uncertain", "all"] = "uncertain"

    @model_validator(mode="after")
    def _band(self) -> SecondReadingParams:
        low, high = self.band
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError(f"band must satisfy 0 <= low <= high <= 1, got {list(self.band)}")
        return self


class SecondReading(Stage[SecondReadingParams]):
    """Reads the selected claims again; the reader's verdict replaces the earlier one."""

    Params = SecondReadingParams
    role = Role.REVIEW

    def __init__(
        self,
        params: SecondReadingParams | None = None,
        resources: StageResources | None = None,
        reader: ClaimReader | None = None,
    ) -> None:
        super().__init__(params, resources)
        self._reader = reader

    def reader(self) -> ClaimReader:
        if self._reader is None:
            self._reader = self.build_reader()
        return self._reader

    def build_reader(self) -> ClaimReader:
        raise NotImplementedError

    def selected(self, case: ClaimCase, suspect: frozenset[int] = frozenset()) -> bool:
        """Whether the second reader reads ``case``: every claim, or one the learned reading
        labelled in the band, or any claim the reading left to the model of an answer flagged
        as suspect (``suspect``: answer numbers; ``Verdict.answer_suspect``)."""
        params = self.params
        if params.claims == "all":
            return True
        if case.state.decided_as != Role.READING or case.probability is None:
            return False
        low, high = params.band
        return low <= case.probability <= high or case.batch.answer_of(case.index) in suspect

    def judge_claims(self, cases: Sequence[ClaimCase]) -> list[Finding | None]:
        suspect = frozenset(
            case.batch.answer_of(case.index) for case in cases if case.state.answer_suspect
        )
        chosen = [case for case in cases if self.selected(case, suspect)]
        out: dict[int, Finding] = {}
        if chosen:
            verdicts = self.reader().verify(
                [case.claim for case in chosen], [case.evidence for case in chosen]
            )
            for case, verdict in zip(chosen, verdicts, strict=True):
                out[case.index] = self._finding(case, verdict)
        return [out.get(case.index) for case in cases]

    def _finding(self, case: ClaimCase, verdict: Verdict) -> Finding:
        if verdict.label is Label.UNVERIFIABLE and case.label is not None:
            # The earlier verdict stands, but the calls were made and are charged to it.
            return Finding(None, f"Judge: {verdict.justification}", usage=verdict.usage)
        return Finding(
            verdict.label,
            verdict.justification,
            verdict.probability,
            verdict.supporting_chunk_ids,
            verdict.error_spans,
            usage=verdict.usage,
        )

    def describe(self) -> dict[str, Any]:
        described = super().describe()
        reader = self._reader
        if reader is not None:
            described["reader"] = f"{reader.name} {reader.version}"
        return described


@stage
class JudgeStage(SecondReading):
    """An LLM judge through litellm (``detection.judge``), its key from the environment."""

    name = "judge"
    version = "1"

    def describe(self) -> dict[str, Any]:
        described = super().describe()
        if self.resources.judge is not None and self._reader is None:
            described["reader"] = f"{self.resources.judge.model} (detection.judge)"
        return described

    def build_reader(self) -> ClaimReader:
        from audit_pipeline.verification.judge import judge_from_settings

        settings = self.resources.judge
        if settings is None:
            raise ValueError("the judge stage needs detection.judge settings")
        return judge_from_settings(settings, self.resources.api_key)


@stage
class ReaderStage(SecondReading):
    """A reader model the user downloaded (``detection.reader``), offline and free."""

    name = "reader"
    version = "1"

    def build_reader(self) -> ClaimReader:
        from audit_pipeline.verification.reader import build_reader
        from audit_pipeline.verification.reader_verdicts import ReaderVerifier

        folder = build_reader(self.resources.reader)
        if folder is None:
            raise ValueError("the reader stage needs detection.reader (kind and path)")
        return ReaderVerifier(folder)
