"""Citation-audit classes (seed 001, layer 3): fully_cited / partially_cited / uncited.

A citation format check passes an answer whose citations point at documents that say something
else, so a claim counts as cited only when a citation covering it resolves to a document that
supports it (the verifier's supporting chunks for that claim come from that document, and the
claim is supported or weakly supported).

Which claims a citation covers: in-text citations work on the line they sit on. A citation
after some claims covers the claims since the previous citation on that line ("A. B
[source: x.md]." covers A and B, as bots cite at the end of a paragraph); a citation with no
claim before it on its line ("Based on [Policy, 4.2]: A. B.") covers the claims after it up to
the next citation. Citations reported outside the text (a target's ``sources`` field) cover
the whole answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from audit_pipeline.records.responses import Citation

CitationClass = Literal["fully_cited", "partially_cited", "uncited"]
GROUNDED = frozenset({"supported", "weakly_supported"})


@dataclass(frozen=True)
class AuditedClaim:
    """A claim's span, its verdict label and the documents of the chunks that support it."""

    start: int
    end: int
    label: str | None
    documents: frozenset[str]


@dataclass(frozen=True)
class CitationAudit:
    """The class of one answer; ``cls`` is None for an answer with no factual claim."""

    cls: CitationClass | None
    claims: int
    cited: int  # claims with a covering citation that resolves to a document
    cited_and_supported: int

    @property
    def detail(self) -> str:
        if self.cls is None:
            return "no factual claim to cite"
        return (
            f"{self.cls}: {self.cited_and_supported} of {self.claims} claim(s) carry a citation "
            f"whose document supports them ({self.cited} cited)"
        )


def _line_bounds(text: str, position: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    return start, len(text) if end < 0 else end


def covered_claims(
    text: str, claims: Sequence[AuditedClaim], citation: Citation, others: Sequence[Citation]
) -> list[int]:
    """Indices of the claims ``citation`` covers (see the module docstring)."""
    if citation.start is None or citation.end is None:
        return list(range(len(claims)))
    line_start, line_end = _line_bounds(text, citation.start)
    positions = sorted(c.start for c in others if c.start is not None and c is not citation)
    previous = max((p for p in positions if line_start <= p < citation.start), default=line_start)
    following = min((p for p in positions if citation.end <= p < line_end), default=line_end)
    before = [i for i, claim in enumerate(claims) if previous <= claim.start < citation.start]
    if before:
        return before
    return [i for i, claim in enumerate(claims) if citation.end <= claim.start < following]


def audit_citations(
    text: str,
    claims: Sequence[AuditedClaim],
    citations: Sequence[Citation],
    resolve: Callable[[Citation], str | None],
) -> CitationAudit:
    """Classify one answer. ``resolve`` maps a citation to the document it names (None when it
    names nothing the vault or the given sources hold)."""
    if not claims:
        return CitationAudit(None, 0, 0, 0)
    cited: set[int] = set()
    supported: set[int] = set()
    for citation in citations:
        document = resolve(citation)
        if document is None:
            continue
        for index in covered_claims(text, claims, citation, citations):
            cited.add(index)
            claim = claims[index]
            if claim.label in GROUNDED and document in claim.documents:
                supported.add(index)
    if len(supported) == len(claims):
        cls: CitationClass = "fully_cited"
    elif supported:
        cls = "partially_cited"
    else:
        cls = "uncited"
    return CitationAudit(cls, len(claims), len(cited), len(supported))
