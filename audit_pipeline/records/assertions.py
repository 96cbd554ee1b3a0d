"""Rule-assertion results as stored, and the verified claims the denial check reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AssertionRow:
    """One row of ``assertion_results`` (without ``audit_id``, which the writer adds).

    The fields after ``detail`` are facts the summary needs: the turn's expected behaviour
    (on the ``behavior`` row), whether a reply that should have answered fell back instead
    (``behavior`` row), and how many of the reply's citations failed verification
    (``citations`` row). They are stored too, so a summary can be rebuilt from the warehouse.
    """

    prompt_id: str
    turn: int
    category: str
    assertion: str
    passed: bool
    detail: str
    expected_behavior: str | None = None
    fell_back: bool = False
    citation_errors: int = 0

    @property
    def key(self) -> tuple[str, int]:
        return (self.prompt_id, self.turn)

    def to_row(self) -> dict[str, Any]:
        """The table's columns, in its order (``audit_id`` excepted)."""
        return {
            "prompt_id": self.prompt_id,
            "turn": self.turn,
            "category": self.category,
            "assertion": self.assertion,
            "passed": self.passed,
            "detail": self.detail,
            "expected_behavior": self.expected_behavior,
            "fell_back": self.fell_back,
            "citation_errors": self.citation_errors,
        }


@dataclass(frozen=True)
class CheckedClaim:
    """A claim of the answer with its span and the verifier's label (None: not verified)."""

    start: int
    end: int
    text: str
    label: str | None
