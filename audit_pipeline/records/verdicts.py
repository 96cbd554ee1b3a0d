"""Verdict vocabulary: the label of a claim and the decision that carries it.

Every verdict carries its provenance (which chunks, which verifier and version, who decided)
because an audit is only useful if an analyst can see *why* a claim was flagged and re-run the
same decision later.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from audit_pipeline.records.usage import LLMUsage


class Label(StrEnum):
    """How well the evidence backs a claim.

    ``unverifiable`` is reserved for "the verifier could not decide" (no evidence given, a
    judge that returned garbage): it is not evidence of a hallucination, and risk scoring
    treats it separately from ``unsupported``. ``stale`` is a contradiction of a fact the
    vault stated before a document changed (``staleness.py``): a hallucination of its own kind.
    """

    SUPPORTED = "supported"
    WEAKLY_SUPPORTED = "weakly_supported"
    UNSUPPORTED = "unsupported"
    CONTRADICTED = "contradicted"
    STALE = "stale"
    UNVERIFIABLE = "unverifiable"


# The one list of labels that make an answer hallucinated: scoring, reports and validation
# all read it from here.
HALLUCINATION_LABELS: frozenset[str] = frozenset(
    {Label.UNSUPPORTED, Label.CONTRADICTED, Label.STALE}
)


@dataclass(frozen=True)
class Verdict:
    """The decision about one claim.

    ``probability`` is the probability that the claim is supported by (grounded in) the
    evidence, 0 to 1, whatever the label, and on the label's side of the scale: below 0.5 for
    a hallucination, 0.5-0.75 weakly supported, from 0.75 supported. ``decided_by`` names what
    decided the label: a check of the local verifier (``specifics``, ``polarity``,
    ``rewrite``), its learned reading (``model``), a ``judge`` or a ``reader``, or the
    terminology ``glossary``.
    The last four fields are what LLM-judge calls for this claim spent (repairs included, and
    also when the judge failed and the local verdict stood), so an audit can show its judge
    bill and what the cascade saved; see :class:`LLMUsage` for ``None``.
    """

    label: Label
    probability: float
    justification: str
    supporting_chunk_ids: tuple[str, ...]
    verifier: str
    verifier_version: str
    decided_by: str
    judge_calls: int = 0
    prompt_tokens: int | None = 0
    completion_tokens: int | None = 0
    cost_usd: float | None = 0.0
    # Inside a flagged claim, the claim-relative character spans that the evidence does not
    # back (a changed number, an unknown name), so a reviewer sees what is wrong at a glance.
    error_spans: tuple[tuple[int, int], ...] = ()
    # For a stale claim: the chunks of an earlier vault state that supported it (their texts
    # are in the warehouse's vault_chunk_history).
    superseded_chunk_ids: tuple[str, ...] = ()
    # The answer-level model reads a hallucination in this claim's answer that no claim's label
    # shows, and this is the answer's least supported claim: a flag on the answer for a reader
    # or an analyst, never a label on the claim (issue 31: "response-level suspicion never
    # labels a faithful claim").
    answer_suspect: bool = False

    @property
    def usage(self) -> LLMUsage:
        return LLMUsage(self.judge_calls, self.prompt_tokens, self.completion_tokens, self.cost_usd)

    def with_usage(self, usage: LLMUsage) -> Verdict:
        """This verdict charged with ``usage`` (replacing what it carried)."""
        return replace(
            self,
            judge_calls=usage.calls,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            cost_usd=usage.cost_usd,
        )
