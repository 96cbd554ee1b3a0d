"""The verifier's chain as the report header shows it: what judged the audit's claims, and
how good it was measured to be, so a reader knows how far to trust a verdict.

An audit records the chain that judged it (``audits.verifier_chain``, migration 18): its
stages in order, its version and the figures measured for that exact chain; the header shows
that, with which stage decided how many claims. Audits from before the chain was recorded name
the verifiers of their verdicts, with the shipped local model's measured figures.
``verifier_chain`` is the one place both reports ask.
"""

from __future__ import annotations

import json
from collections import Counter

from audit_pipeline.reports.data import ReportData
from audit_pipeline.verification.scorer import LocalModel
from audit_pipeline.verification.verdict import stages_line


def _decided(counts: Counter[str]) -> str:
    return "decided by " + ", ".join(f"{step} {n}" for step, n in counts.most_common())


def verifier_chain(data: ReportData) -> list[str]:
    """The recorded chain (its stages, version and measured quality) or, for an older audit,
    one line per verifier that judged its claims; each with which stage decided how many
    claims (``decided by specifics 3, model 30``). Empty when nothing was judged."""
    if data.audit.verifier_chain:
        chain = json.loads(data.audit.verifier_chain)
        line = (
            f"{chain['name']} chain {str(chain['version'])[:12]}: "
            f"{stages_line(chain['stages'])} ({chain['quality']})"
        )
        decided = Counter(c.decided_by for p in data.prompts for c in p.claims if c.decided_by)
        return [f"{line} · {_decided(decided)}" if decided else line]
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
            parts.append(_decided(decided))
        lines.append(" · ".join(parts))
    return lines
