"""The verifier's quality on this team's own marked claims, in words (``v_verifier_quality``).

The benchmark figures say how the verifier did on public data sets; the marks say how it does
on this vault. The report header and ``audit-pipeline verifier`` print both, this beside the
benchmark line: the chain's precision and recall of its flags (any of unsupported,
contradicted, stale, against the analysts' unsupported or contradicted), per label, and the
precision of each stage that decided marked claims, each with its 95 % Wilson interval and
counts, so a figure on eight marks reads as the guess it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

NO_MARKS = "no marked claims yet (audit-pipeline mark)"


def _figure(row: Mapping[str, Any], kind: str, count: str) -> str:
    value = row.get(kind)
    if value is None:
        return f"{kind} n/a"
    low, high = row.get(f"{kind}_low"), row.get(f"{kind}_high")
    return f"{kind} {value:.2f} [{low:.2f}, {high:.2f}] ({int(row['correct'])}/{int(row[count])})"


def quality_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Lines of ``v_verifier_quality``: the chain's flags, its labels, then each stage's flags
    ([``NO_MARKS``] when nothing is marked)."""
    chain = {r["label"]: r for r in rows if r.get("decided_by") is None}
    flags = chain.get("hallucination")
    if not flags or not flags.get("marked_claims"):
        return [NO_MARKS]
    lines = [
        f"on this team's {int(flags['marked_claims'])} marked claims: flags "
        f"{_figure(flags, 'precision', 'given')}, {_figure(flags, 'recall', 'truly_marked')}"
    ]
    labels = [
        f"`{label}` {_figure(chain[label], 'precision', 'given')}"
        for label in ("unsupported", "contradicted", "supported")
        if label in chain and chain[label].get("given")
    ]
    if labels:
        lines.append("by label: " + " · ".join(labels))
    stages = [
        f"{r['decided_by']} {_figure(r, 'precision', 'given')}"
        for r in rows
        if r.get("decided_by") is not None and r["label"] == "hallucination" and r.get("given")
    ]
    if stages:
        lines.append("flags by stage: " + " · ".join(stages))
    return lines
