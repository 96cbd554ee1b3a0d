"""What the reply must say (``required_signals``) and must never say (``must_not_appear``).

Both use the literal, boundary-aware matching of ``text.find_phrase``: "4 hours" must not be
found in "24 hours", or a bot that quadruples the revocation time would pass. Required signals
are looked for with citation markers blanked out, because a marker is provenance, not content:
"[source: ...#Exceptions Noted]" must not satisfy the signal "exceptions noted" in a reply that
says no exceptions were noted. Forbidden strings are looked for everywhere the reader sees.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit_pipeline.assertions.assertion_outcome import (
    MUST_NOT_APPEAR,
    REQUIRED_SIGNALS,
    AssertionOutcome,
)
from audit_pipeline.assertions.text_match import blank_spans, find_phrase, join_limited, quoted
from audit_pipeline.targets.cited_sources import parse_citations


def without_citation_markers(text: str) -> str:
    """``text`` with every citation marker replaced by spaces (positions kept)."""
    spans = [
        (citation.start, citation.end)
        for citation in parse_citations(text)
        if citation.start is not None and citation.end is not None
    ]
    return blank_spans(text, spans)


def check_required_signals(text: str, groups: Sequence[Sequence[str]]) -> AssertionOutcome:
    """Every group ("a|b|c", given split) must match at least one of its alternatives."""
    content = without_citation_markers(text)
    missing: list[str] = []
    for group in groups:
        alternatives = [alt for alt in group if alt.strip()]
        if not any(find_phrase(content, alt) for alt in alternatives):
            missing.append(quoted("|".join(alternatives)))
    if missing:
        return AssertionOutcome(
            REQUIRED_SIGNALS,
            False,
            f"{len(missing)} of {len(groups)} signal group(s) not found: {join_limited(missing)}",
        )
    return AssertionOutcome(REQUIRED_SIGNALS, True, f"all {len(groups)} signal group(s) found")


def must_not_appear_hits(text: str, forbidden: Sequence[str]) -> list[tuple[str, int]]:
    """``(string, position)`` of every forbidden string found, in order of position."""
    hits = [(phrase, match.start()) for phrase in forbidden for match in find_phrase(text, phrase)]
    return sorted(hits, key=lambda hit: hit[1])


def check_must_not_appear(text: str, forbidden: Sequence[str]) -> AssertionOutcome:
    return must_not_appear_outcome(must_not_appear_hits(text, forbidden), len(forbidden))


def must_not_appear_outcome(hits: Sequence[tuple[str, int]], checked: int) -> AssertionOutcome:
    """The assertion for hits already found among ``checked`` forbidden strings."""
    if hits:
        found = [f"{quoted(phrase)} found at char {position}" for phrase, position in hits]
        return AssertionOutcome(MUST_NOT_APPEAR, False, join_limited(found))
    return AssertionOutcome(MUST_NOT_APPEAR, True, f"none of {checked} forbidden string(s) found")
