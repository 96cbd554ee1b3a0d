"""The result of one assertion, alone (``AssertionOutcome``) and as a warehouse row
(``AssertionRow``).

A failed assertion's ``detail`` says concretely what was wrong ("\"quarterly\" found at char
112"), because it is what an analyst reads in the report and in the CI log; a passing one says
briefly what was checked, so a green row is evidence too.
"""

from __future__ import annotations

from dataclasses import dataclass

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
