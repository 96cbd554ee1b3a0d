"""Term lookups, their outcome and their counters.

A lookup ends in one of four ways, and each must lead to a different verdict: a hit (the
definition is the evidence), an ambiguous hit (several concepts share the label), a miss (the
term is unknown: a definition of it cannot be trusted) and a timeout (nothing can be said;
never invent a definition). The counters are process-wide Prometheus counters because the
validation service is a long-lived process that a scraper reads (``render_term_metrics``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from prometheus_client import CollectorRegistry, Counter, generate_latest

from audit_pipeline.terminology.glossary import Concept, Glossary

Status = Literal["hit", "ambiguous", "miss", "timeout"]

TERM_REGISTRY = CollectorRegistry()
TERM_LOOKUPS = Counter("term_lookup", "Terminology lookups.", registry=TERM_REGISTRY)
TERM_HITS = Counter("term_hit", "Lookups that found the term.", registry=TERM_REGISTRY)
TERM_MISSES = Counter("term_miss", "Lookups of a term the glossary lacks.", registry=TERM_REGISTRY)
TERM_TIMEOUTS = Counter(
    "term_timeout", "Remote lookups that ran out of time.", registry=TERM_REGISTRY
)
TERM_CACHE_HITS = Counter(
    "term_cache_hit", "Remote lookups answered from the cache.", registry=TERM_REGISTRY
)


def render_term_metrics() -> str:
    """The counters in the Prometheus text format."""
    return generate_latest(TERM_REGISTRY).decode()


def term_metric(name: str) -> float:
    """One counter's value (``term_hit_total``); for tests and the service's health output."""
    value = TERM_REGISTRY.get_sample_value(name)
    return 0.0 if value is None else value


@dataclass(frozen=True)
class TermLookup:
    """What a source knows about ``term``; ``detail`` explains a timeout or an error."""

    term: str
    status: Status
    concepts: tuple[Concept, ...] = ()
    cached: bool = False
    detail: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "term": self.term,
            "status": self.status,
            "cached": self.cached,
            "detail": self.detail,
            "concepts": [
                {
                    "id": c.concept_id,
                    "term": c.term,
                    "alt_labels": list(c.alt_labels),
                    "definition": c.definition,
                    "source": c.source,
                }
                for c in self.concepts
            ],
        }


def outcome(term: str, concepts: tuple[Concept, ...], *, cached: bool = False) -> TermLookup:
    status: Status = "miss" if not concepts else "hit" if len(concepts) == 1 else "ambiguous"
    return TermLookup(term, status, concepts, cached)


def count(lookup: TermLookup) -> TermLookup:
    """Increment the counters for one finished lookup (ambiguous counts as a hit)."""
    TERM_LOOKUPS.inc()
    if lookup.cached:
        TERM_CACHE_HITS.inc()
    if lookup.status in ("hit", "ambiguous"):
        TERM_HITS.inc()
    elif lookup.status == "miss":
        TERM_MISSES.inc()
    else:
        TERM_TIMEOUTS.inc()
    return lookup


class TermSource(Protocol):
    """Where definitions come from: the local glossary or a SKOSMOS endpoint."""

    name: str

    def lookup(self, term: str) -> TermLookup: ...


class GlossarySource:
    """A glossary file loaded in memory; lookups never time out."""

    def __init__(self, glossary: Glossary) -> None:
        self.glossary = glossary
        self.name = glossary.name

    def lookup(self, term: str) -> TermLookup:
        return count(outcome(term, self.glossary.lookup(term)))
