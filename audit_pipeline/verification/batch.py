"""What the verifier is handed: answers (their claims with evidence), and the analyses computed
over them.

Analyses that several stages read (the parse of the evidence, the features of a claim, the
entailment model's reading) are computed once per batch and kept on it (``Batch.analysis``):
each stage owns the analysis it needs (a function of the batch, in the module that holds its
logic) and asks for it, so nothing is precomputed into an object a new stage would have to be
added to, and two stages that read the same analysis share one computation. A batch is the
claims verified together (one answer on the service, one per call in an audit, many in a
benchmark), so models read them in one pass.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from audit_pipeline.embedding import Embedder, MemoEmbedder
from audit_pipeline.records.claims import Claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdict_provenance import ClaimKey, PriorVerdict
from audit_pipeline.text.normalize import normalize

if TYPE_CHECKING:
    from audit_pipeline.verification.entailment import EntailmentModel

T = TypeVar("T")


@dataclass(frozen=True)
class Answer:
    """The claims of one answer with their evidence (``evidence[i]`` for ``claims[i]``).

    ``key`` is (prompt id, turn) in an audit, which staleness needs to find a claim's earlier
    verdicts; None elsewhere.
    """

    claims: tuple[Claim, ...]
    evidence: tuple[tuple[EvidencePassage, ...], ...]
    key: tuple[str, int] | None = None

    def __post_init__(self) -> None:
        if len(self.claims) != len(self.evidence):
            raise ValueError(f"{len(self.claims)} claims but {len(self.evidence)} evidence lists")

    @classmethod
    def of(
        cls,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[EvidencePassage]],
        key: tuple[str, int] | None = None,
    ) -> Answer:
        return cls(tuple(claims), tuple(tuple(e) for e in evidence), key)


@dataclass(frozen=True)
class History:
    """What judging a claim stale needs: its verdicts against earlier vault states (by claim
    key), and which chunks the vault holds now and has ever held. Read from the warehouse
    once, so verification itself can run where there is none."""

    prior: Mapping[ClaimKey, PriorVerdict]
    current_chunks: frozenset[str]
    chunks_ever: frozenset[str]

    def for_keys(self, keys: Collection[ClaimKey]) -> History:
        prior = {key: verdict for key, verdict in self.prior.items() if key in keys}
        mentioned = {chunk for p in prior.values() for chunk in p.supporting_chunk_ids}
        return History(prior, self.current_chunks & mentioned, self.chunks_ever & mentioned)


def _in_reading_form(passage: EvidencePassage) -> EvidencePassage:
    read = normalize(passage.text)
    return replace(passage, text=read.text) if read.changed else passage


class Batch:
    """Answers verified together, and the analyses computed over all their claims.

    Stages and analyses read the claims and their evidence in reading form
    (``text/normalize.py``: invisible characters dropped, compatibility forms folded), so a
    zero-width space or a soft hyphen inside a word changes no verdict; ``original_span``
    maps a span of a claim's reading form back into the claim as the bot wrote it.
    """

    def __init__(self, answers: Sequence[Answer], embedder: Embedder | None = None) -> None:
        self.answers = tuple(answers)
        written = [c for a in self.answers for c in a.claims]
        self._read = [normalize(c.text) for c in written]
        self.claims: list[Claim] = [
            replace(c, text=read.text) if read.changed else c
            for c, read in zip(written, self._read, strict=True)
        ]
        self.evidence: list[tuple[EvidencePassage, ...]] = [
            tuple(_in_reading_form(p) for p in e) for a in self.answers for e in a.evidence
        ]
        self._embedder = embedder
        self._analyses: dict[Callable[[Batch], Any], list[Any]] = {}
        starts, start = [], 0
        for answer in self.answers:
            starts.append(start)
            start += len(answer.claims)
        self.starts = tuple(starts)

    @cached_property
    def embedder(self) -> MemoEmbedder:
        """The embedder analyses use (the shipped sentence model when none was given; loaded
        only when an analysis needs it)."""
        embedder = self._embedder
        if embedder is None:
            from audit_pipeline.embedding import SentenceTransformerEmbedder

            embedder = SentenceTransformerEmbedder()
        return embedder if isinstance(embedder, MemoEmbedder) else MemoEmbedder(embedder)

    @cached_property
    def entailment(self) -> EntailmentModel:
        from audit_pipeline.verification.entailment import EntailmentModel

        return EntailmentModel.shared()

    def analysis(self, compute: Callable[[Batch], list[T]]) -> list[T]:
        """``compute(self)``, one result per claim, computed on first request and kept."""
        if compute not in self._analyses:
            result = compute(self)
            if len(result) != len(self.claims):
                raise ValueError(f"{compute.__name__} gave {len(result)} results")
            self._analyses[compute] = result
        return self._analyses[compute]

    def original_span(self, index: int, start: int, end: int) -> tuple[int, int]:
        """A span of claim ``index``'s reading form as a span of the claim as written."""
        return self._read[index].to_original(start, end)

    def claim_key(self, index: int) -> ClaimKey | None:
        answer = self.answers[self.answer_of(index)]
        if answer.key is None:
            return None
        return (answer.key[0], answer.key[1], self._read[index].original)

    def answer_of(self, index: int) -> int:
        """The number of the answer claim ``index`` belongs to."""
        return bisect.bisect_right(self.starts, index) - 1
