"""The Self-RAG critiques of one answer and the confidence and recommendation built on them.

Seed 003 names three checks: ``isrel`` (are the sources relevant to the question), ``issup``
(is the answer supported by them: full / partial / none) and ``isuse`` (does the answer
address the question), and weighs them 0.3 / 0.4 / 0.3 for factual questions and
0.2 / 0.3 / 0.5 for conversational ones.

Taken as three independent numbers those weights give a relevant, on-topic but wholly invented
answer 0.6, which the seed itself expects below 0.3. Self-RAG's critiques are conditional, and
two rules make the weights meet the seed's expectations:

- usefulness counts only the grounded part of the answer (``isuse`` score = addresses the
  question x support share): an invented answer to the right question helps nobody;
- relevance is that of the sources the answer rests on (the chunks that support its claims),
  so sources nobody used earn nothing: an answer resting on nothing has relevance 0.

``isrel`` as reported (are any sources relevant) still looks at all sources.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from audit_pipeline.records.verdicts import HALLUCINATION_LABELS
from audit_pipeline.validation.query_type import QueryType
from audit_pipeline.validation.settings import ValidationSettings

SupportLevel = Literal["full", "partial", "none"]
Recommendation = Literal["accept", "retry", "reject"]

WEIGHTS: dict[str, tuple[float, float, float]] = {
    "factual": (0.3, 0.4, 0.3),
    "conversational": (0.2, 0.3, 0.5),
}
# How much a verdict label counts towards the support share; unverifiable is left out.
LABEL_SUPPORT = {
    "supported": 1.0,
    "weakly_supported": 0.5,
    "unsupported": 0.0,
    "contradicted": 0.0,
    "stale": 0.0,
}
GROUNDED_LABELS = frozenset({"supported", "weakly_supported"})


@dataclass(frozen=True)
class SelfRagChecks:
    """The three critiques, the confidence and the gate's recommendation for one answer."""

    query_type: QueryType
    isrel: bool
    relevance: float  # 0-1, of the best source (all sources)
    grounding_relevance: float  # 0-1, of the best source the answer rests on
    issup: SupportLevel
    support: float  # 0-1, the support share of the verdicts
    isuse: bool
    addresses: float  # 0-1, does the answer address the question (alone)
    usefulness: float  # addresses x support
    confidence: float
    recommendation: Recommendation
    reasoning: str
    method: str  # "offline" or "llm:<model>"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def scale(value: float, floor: float, full: float) -> float:
    """``value`` mapped linearly from [floor, full] onto [0, 1], clamped."""
    return max(0.0, min(1.0, (value - floor) / (full - floor)))


def support_share(labels: Sequence[str]) -> float | None:
    """Mean support of the verifiable claims; None when no claim could be verified."""
    scores = [LABEL_SUPPORT[label] for label in labels if label in LABEL_SUPPORT]
    return sum(scores) / len(scores) if scores else None


def support_level(labels: Sequence[str]) -> SupportLevel:
    """full: no hallucinated claim and at least half supported outright; none: nothing
    supported; partial: the rest."""
    share = support_share(labels)
    if share is None or share == 0.0:
        return "none"
    if not HALLUCINATION_LABELS.intersection(labels) and share >= 0.75:
        return "full"
    return "partial"


def confidence(
    query_type: QueryType, grounding_relevance: float, support: float, usefulness: float
) -> float:
    w_rel, w_sup, w_use = WEIGHTS[query_type]
    return round(w_rel * grounding_relevance + w_sup * support + w_use * usefulness, 4)


def recommend(value: float, hallucinated: bool, settings: ValidationSettings) -> Recommendation:
    """accept above the accept threshold when no claim is hallucinated; reject below the
    reject threshold; retry in between (or a confident answer with a hallucinated claim,
    which a regeneration with stricter grounding may fix)."""
    if value < settings.reject_confidence:
        return "reject"
    if value >= settings.accept_confidence and not hallucinated:
        return "accept"
    return "retry"


def self_rag_checks(
    *,
    query_type: QueryType,
    relevance: float,
    grounding_relevance: float,
    addresses: float,
    labels: Sequence[str],
    settings: ValidationSettings,
    method: str = "offline",
    notes: Sequence[str] = (),
) -> SelfRagChecks:
    """Combine the three critiques of one answer (scores already on 0-1)."""
    share = support_share(labels)
    level = support_level(labels)
    if share is None and query_type == "conversational":
        # Small talk with no factual claim has nothing to ground: support is not at stake.
        share, level = 1.0, "full"
    share = share or 0.0
    usefulness = round(addresses * share, 4)
    value = confidence(query_type, grounding_relevance, share, usefulness)
    hallucinated = bool(HALLUCINATION_LABELS.intersection(labels))
    reasons = [
        f"{query_type} question",
        f"sources relevant {relevance:.2f} (used {grounding_relevance:.2f})",
        f"support {level} ({share:.2f} over {len(labels)} claim(s))",
        f"addresses the question {addresses:.2f}",
        *notes,
    ]
    return SelfRagChecks(
        query_type=query_type,
        isrel=relevance >= settings.relevant_score,
        relevance=round(relevance, 4),
        grounding_relevance=round(grounding_relevance, 4),
        issup=level,
        support=round(share, 4),
        isuse=usefulness >= settings.useful_score,
        addresses=round(addresses, 4),
        usefulness=usefulness,
        confidence=value,
        recommendation=recommend(value, hallucinated, settings),
        reasoning="; ".join(reasons),
        method=method,
    )
