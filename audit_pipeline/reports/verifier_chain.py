"""The verifier's chain as the report header shows it: what judged the audit's claims, and
how good it was measured to be, so a reader knows how far to trust a verdict.

Today a verdict names one verifier with its version (``local local-5``, ``llm ...``) and the
shipped local model carries its measured figures; the CLI's summary prints the same two things
(``claims 33 checked by local local-5`` / ``verifier F1 0.65, ...``). ``verifier_chain`` is the
one place the reports ask, so a chain of named, versioned stages can list each stage here.
"""

from __future__ import annotations

from collections import Counter

from audit_pipeline.reports.data import ReportData
from audit_pipeline.verification.scorer import LocalModel


def verifier_chain(data: ReportData) -> list[str]:
    """One line per verifier that judged the audit's claims: its name and version, its
    measured quality where the shipped model has figures, and which of its steps decided how
    many claims (``decided by specifics 3, model 30``). Empty when nothing was judged."""
    claims = [claim for prompt in data.prompts for claim in prompt.claims if claim.verifier]
    names = sorted({f"{c.verifier} {c.verifier_version or ''}".strip() for c in claims})
    shipped = LocalModel.load()
    quality = shipped.quality()
    lines = []
    for name in names:
        decided = Counter(
            c.decided_by
            for c in claims
            if f"{c.verifier} {c.verifier_version or ''}".strip() == name and c.decided_by
        )
        parts = [name]
        if quality and shipped.version in name.split():
            parts.append(quality)
        if decided:
            parts.append(
                "decided by " + ", ".join(f"{step} {n}" for step, n in decided.most_common())
            )
        lines.append(" · ".join(parts))
    return lines
