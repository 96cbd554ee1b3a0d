"""Which audit: the reference that flows between the audit assets."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AuditRef:
    """Identifies one audit; this is what flows between the audit assets.

    ``categories`` / ``ids`` record a run restricted to part of the suite, so later stages
    judge the audit against the same prompts that were sent.
    """

    audit_id: str
    target: str
    suite: str
    suite_hash: str
    categories: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()

    @property
    def scope(self) -> str:
        """``full`` when the whole suite is asked, ``partial`` for a selection (``--id``,
        ``--category``): only full audits of a target are compared in trends (migration 17)."""
        return "partial" if self.categories or self.ids else "full"
