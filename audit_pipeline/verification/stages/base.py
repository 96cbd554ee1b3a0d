"""What a verification stage is: a named, versioned step that may set or change a claim's label.

Every step that decides a verdict is one of these, composed in the order ``detection.stages``
gives, so an engineer extending the verifier adds a stage instead of editing the verifier: the
checks that compare what a claim states with its evidence, the learned reading of what no check
decided, a second reader for the uncertain ones, staleness, the glossary. A stage declares its
parameters (a pydantic model: the thresholds it decides by, with today's values as defaults),
what it reads (``Reads``), and returns a ``Finding`` per claim or nothing. The model is
inspect_ai's scorers: small, registered by name, composed by configuration.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from pydantic import BaseModel, ConfigDict

from audit_pipeline.llm.judge_settings import JudgeSettings
from audit_pipeline.records.usage import LLMUsage
from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.digests import project_code_digest, source_digest

if TYPE_CHECKING:
    from audit_pipeline.verification.reader import ReaderSettings
    from audit_pipeline.verification.stages.cases import AnswerCase, ClaimCase

# Every stage a chain can name, by name: this package's register as their modules are
# imported (``stages/builtin.py``), plugins' through ``registry.py``'s entry points.
REGISTERED: dict[str, type[Stage[Any]]] = {}


class Reads(StrEnum):
    """What a stage needs to decide, and so where the chain can run it.

    ``claim``: one claim, its evidence passages and what earlier stages found (any surface);
    ``answer``: every claim of one answer together (a reading that weighs claims against each
    other); ``history``: one claim and its verdicts against earlier vault states (a batch
    audit only: the warehouse keeps them); ``glossary``: one claim's verdict and the glossary's
    lookup of the term it defines (run over every verdict of an audit, carried over or not,
    because a glossary can change while the evidence does not); ``marks``: one claim's verdict
    and the analysts' live mark on its claim key, with whether its evidence is the one the mark
    was given against (run the same way, after carry-over: a mark made after one audit must
    apply to the next even when its verdicts are carried over). The last two ``settle``:
    ``VerifierChain.settle`` runs them over finished verdicts.
    """

    CLAIM = "claim"
    ANSWER = "answer"
    HISTORY = "history"
    GLOSSARY = "glossary"
    MARKS = "marks"

    @property
    def settles(self) -> bool:
        """Whether the chain runs it over finished verdicts (after carry-over) rather than
        while verifying."""
        return self in (Reads.GLOSSARY, Reads.MARKS)


class Role(StrEnum):
    """How a stage's finding combines with what earlier stages found.

    A ``check`` decides a claim when it finds something wrong: a contradiction outranks a
    missing fact, then the check listed first names the verdict. A ``reading`` labels the claims
    no check decided and may refine the probability of the others (never their label). A
    ``review`` takes a second look and may change any label it is asked about.
    """

    CHECK = "check"
    READING = "reading"
    REVIEW = "review"


class StageParams(BaseModel):
    """A stage's parameters; subclasses declare fields with today's values as defaults."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class Finding:
    """What one stage found about one claim.

    ``label`` None makes it a reading: the label stays, the probability (when given) and the
    explanation are added. ``probability`` is p(supported) on the verdict scale (a
    hallucination below 0.5, weakly supported from 0.5, supported from 0.75); for a check it
    is the most the claim can be trusted once the check decided. ``evidence_ids`` are the
    chunks the finding rests on (None: those an earlier finding named), ``error_spans``
    claim-relative character spans of what is wrong, ``usage`` what LLM calls it spent.
    """

    label: Label | None
    explanation: str
    probability: float | None = None
    evidence_ids: tuple[str, ...] | None = None
    error_spans: tuple[tuple[int, int], ...] = ()
    usage: LLMUsage | None = None
    superseded_ids: tuple[str, ...] = ()
    # The answer this claim belongs to is suspect (``Verdict.answer_suspect``).
    answer_suspect: bool = False


@dataclass(frozen=True)
class StageResources:
    """What some stages need besides their parameters: the LLM judge's connection (its key
    comes from the environment through Dagster's ``EnvVar``; never logged or stored) and a
    reader the user downloaded (``detection.reader``, path resolved)."""

    judge: JudgeSettings | None = None
    api_key: str | None = field(default=None, repr=False)
    reader: ReaderSettings | None = None


P = TypeVar("P", bound=StageParams)


class Stage(ABC, Generic[P]):
    """One step of the verifier chain; ``P`` is the type of its parameters (``Params``).

    Subclasses set ``name`` (what ``verdicts.decided_by`` stores when the stage decides),
    ``version`` (bump it when what the stage decides changes: the verifier's identity includes
    it, so no earlier verdict is carried over), ``Params``, ``reads`` and ``role``, and
    implement ``judge`` (claim, history, glossary and marks stages) or ``judge_answer`` (answer
    stages). ``judge_claims`` may be overridden to batch work (model calls) over many claims.
    """

    name: ClassVar[str]
    version: ClassVar[str]
    Params: ClassVar[type[StageParams]] = StageParams
    reads: ClassVar[Reads] = Reads.CLAIM
    role: ClassVar[Role] = Role.CHECK

    def __init__(self, params: P | None = None, resources: StageResources | None = None) -> None:
        given = params if params is not None else self.Params()
        if not isinstance(given, self.Params):
            raise TypeError(f"stage {self.name!r} takes {self.Params.__name__}")
        self.params: P = cast(P, given)
        self.resources = resources or StageResources()

    def judge(self, case: ClaimCase) -> Finding | None:
        """The finding about one claim, or None when the stage has nothing to say."""
        raise NotImplementedError(f"stage {self.name!r} reads {self.reads}, not one claim")

    def judge_claims(self, cases: Sequence[ClaimCase]) -> list[Finding | None]:
        return [self.judge(case) for case in cases]

    def judge_answer(self, answer: AnswerCase) -> list[Finding | None]:
        """One finding (or None) per claim of ``answer``, in order; an answer stage may also
        set ``answer.hallucination_probability``."""
        raise NotImplementedError(f"stage {self.name!r} reads {self.reads}, not an answer")

    def fingerprint(self) -> str:
        """The code the stage's decisions depend on: for a stage of this project, every module
        and word list of the packages the stages read (a rule changed in an analysis changes
        the verdicts of every stage reading it); for a plugin's, its module. Part of the
        verifier's identity, so a changed rule never carries an old verdict over even when
        nobody bumped a version."""
        if type(self).__module__.startswith("audit_pipeline."):
            return project_code_digest()
        return source_digest(type(self))

    def files(self) -> dict[str, str]:
        """Model or data files the stage reads, by name: their content digests (shown by
        ``audit-pipeline verifier`` and part of the chain's measured-figures key)."""
        return {}

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "reads": str(self.reads),
            "role": str(self.role),
            "params": self.params.model_dump(mode="json"),
            "files": self.files(),
        }


class StageError(ValueError):
    """A chain names a stage nobody registered, or gives it parameters it does not take."""


S = TypeVar("S", bound="type[Stage[Any]]")


def stage(cls: S) -> S:
    """Class decorator: make ``cls`` available to ``detection.stages`` under ``cls.name``."""
    for attribute in ("name", "version"):
        if not isinstance(getattr(cls, attribute, None), str):
            raise TypeError(f"{cls.__name__} must set a string {attribute!r}")
    known = REGISTERED.get(cls.name)
    if known is not None and known is not cls:
        raise StageError(
            f"stage name {cls.name!r} is taken by {known.__module__}.{known.__qualname__}"
        )
    REGISTERED[cls.name] = cls
    return cls
