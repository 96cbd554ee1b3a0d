"""Whether an audit checked enough to decide anything: the ``incomplete`` decision.

With the judge unreachable every claim is ``unverifiable`` and the risk is unknown; with the
target down most turns have no answer and the few that came back decide alone. Either way a
risk computed from what is left reads as a pass that nobody checked. So when more than
``scoring.incomplete_share`` of the claims could not be verified, or of the suite's turns got no
answer, the ``completeness`` gate fails and the release decision is ``incomplete`` (or
``block``, with ``scoring.on_incomplete: block``), whatever the other gates found: their figures
are artefacts of what is missing. The decision rule itself is ``rules.release_decision``.

An answer in a script the claim extractor does not read (Arabic, Hebrew, ...: ``text/scripts``)
yields no claim, so nothing in it is verified: it counts with the unanswered turns as a turn
nobody checked, with its script named; below the limit the gate passes and still says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from audit_pipeline.records.responses import ResponseRecord
from audit_pipeline.text.scripts import unread_script


@dataclass(frozen=True)
class Completeness:
    """How much of the audit could be checked."""

    turns: int
    unanswered: int
    claims: int
    unverifiable: int
    # Answered turns whose script the claim extractor does not read: "ENC-1 turn 0 (Arabic)"
    unread: tuple[str, ...] = ()

    @property
    def unanswered_share(self) -> float:
        return self.unanswered / self.turns if self.turns else 0.0

    @property
    def unverifiable_share(self) -> float:
        return self.unverifiable / self.claims if self.claims else 0.0

    @property
    def unchecked_share(self) -> float:
        """Turns that got no answer or an answer no claim could be read from."""
        return (self.unanswered + len(self.unread)) / self.turns if self.turns else 0.0

    def _unread_text(self) -> str:
        shown = ", ".join(self.unread[:5]) + (", ..." if len(self.unread) > 5 else "")
        return (
            f"{len(self.unread)} of {self.turns} turns answered in a script the claim extractor "
            f"does not read, so nothing in them was verified ({shown})"
        )

    def problems(self, limit: float) -> list[str]:
        """Why the audit is incomplete (empty when it is complete enough)."""
        found = []
        if self.turns and self.unanswered_share > limit:
            found.append(
                f"{self.unanswered} of {self.turns} turns got no answer "
                f"({self.unanswered_share:.0%} > {limit:.0%})"
            )
        if self.unread and self.unchecked_share > limit:
            found.append(
                f"{self._unread_text()} ({self.unchecked_share:.0%} of the turns unchecked > "
                f"{limit:.0%})"
            )
        if self.claims and self.unverifiable_share > limit:
            found.append(
                f"{self.unverifiable} of {self.claims} claims could not be verified "
                f"({self.unverifiable_share:.0%} > {limit:.0%})"
            )
        return found

    def notes(self, limit: float) -> list[str]:
        """What a complete-enough audit still did not check (shown on the passing gate)."""
        if self.unread and not self.unchecked_share > limit:
            return [self._unread_text()]
        return []


def completeness(
    records: Sequence[ResponseRecord], labels: Mapping[tuple[str, int], Sequence[str]]
) -> Completeness:
    """Counts over an audit's response rows and the verdict labels of their claims."""
    all_labels = [label for found in labels.values() for label in found]
    unread = []
    for r in records:
        if r.error is None and r.response and not labels.get((r.prompt_id, r.turn)):
            script = unread_script(r.response)
            if script is not None:
                unread.append(f"{r.prompt_id} turn {r.turn} ({script})")
    return Completeness(
        turns=len(records),
        unanswered=sum(1 for r in records if r.error is not None or r.response is None),
        claims=len(all_labels),
        unverifiable=sum(label == "unverifiable" for label in all_labels),
        unread=tuple(unread),
    )
