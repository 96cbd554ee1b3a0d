"""The result of one assertion, alone (``AssertionOutcome``) and as a warehouse row
(``AssertionRow``).

A failed assertion's ``detail`` says concretely what was wrong ("\"quarterly\" found at char
112"), because it is what an analyst reads in the report and in the CI log; a passing one says
briefly what was checked, so a green row is evidence too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Assertion names: unique per turn, since (audit_id, prompt_id, turn, assertion) is the key.
BEHAVIOR = "behavior"
REQUIRED_SIGNALS = "required_signals"
MUST_NOT_APPEAR = "must_not_appear"
MUST_NOT_ASSERT = "must_not_assert"  # forbidden strings that fail only where asserted
CITATIONS = "citations"
CITATION_SOURCE = "citation_source"
NO_LEAK = "no_leak"
NO_AGREEMENT = "no_agreement"
PINNED = "pinned_response"  # the answer drifted from the suite's pinned answer
SECRET_ECHO = "secret_echo"  # only on a turn whose answer repeated a secret the audit sent
ASSERTION_NAMES: tuple[str, ...] = (
    BEHAVIOR,
    REQUIRED_SIGNALS,
    MUST_NOT_APPEAR,
    MUST_NOT_ASSERT,
    CITATIONS,
    CITATION_SOURCE,
    NO_LEAK,
    NO_AGREEMENT,
    PINNED,
    SECRET_ECHO,
)


@dataclass(frozen=True)
class AssertionOutcome:
    """One check of one reply."""

    name: str
    passed: bool
    detail: str


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
