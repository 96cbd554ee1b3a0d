"""The configured checks, run in order over one claim: which finding decides.

Every check is asked; a contradiction outranks a missing fact (a claim that states a wrong
deadline and also names a vendor the vault never mentions is contradicted), and among findings
of the same label the check listed first in ``detection.checks`` names the verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.checks.finding import Check, Finding
from audit_pipeline.verification.checks.polarity import PolarityCheck
from audit_pipeline.verification.checks.rewrite import RewriteCheck
from audit_pipeline.verification.checks.specifics import SpecificsCheck
from audit_pipeline.verification.features import Alignment

REGISTRY: dict[str, Check] = {
    check.name: check for check in (SpecificsCheck(), PolarityCheck(), RewriteCheck())
}
DEFAULT_CHECKS: tuple[str, ...] = tuple(REGISTRY)


class CheckChain:
    """The checks named in ``names`` (all of them by default), in that order."""

    def __init__(self, names: Sequence[str] = DEFAULT_CHECKS) -> None:
        unknown = [name for name in names if name not in REGISTRY]
        if unknown:
            raise ValueError(f"unknown check(s) {unknown}; known: {sorted(REGISTRY)}")
        self.names = tuple(names)
        self.checks = [REGISTRY[name] for name in self.names]

    def decide(self, alignment: Alignment) -> Finding | None:
        """The deciding finding about ``alignment``'s claim, or None when no check decides."""
        found = [f for f in (check.find(alignment) for check in self.checks) if f is not None]
        for label in (Label.CONTRADICTED, Label.UNSUPPORTED):
            for finding in found:
                if finding.label is label:
                    return finding
        return None
