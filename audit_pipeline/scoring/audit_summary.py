"""The headline numbers of an audit's rule assertions.

``total`` counts prompts, not turns or assertions: a prompt passes when every assertion of every
one of its turns passes. A conversation is one test, as in the seed harness where a multi-turn
chain is a single entry; counting turns would let a chain that derails on its last turn score
2 of 3, and counting assertions would weight a prompt by how many strings its author listed.
The assertion-level counts are reported beside it for diagnosis. The behaviour assertion
summarises the others (an answer fails it when its citations fail), so one defect can fail two
assertions; it never fails two prompts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from audit_pipeline.assertions.assertion_outcome import MUST_NOT_APPEAR, MUST_NOT_ASSERT
from audit_pipeline.records.assertions import AssertionRow
from audit_pipeline.records.responses import ResponseRecord
from audit_pipeline.scoring.rules import is_fallback_error

TurnKey = tuple[str, int]


@dataclass(frozen=True)
class CategoryCounts:
    passed: int
    failed: int

    def to_dict(self) -> dict[str, int]:
        return {"passed": self.passed, "failed": self.failed}


@dataclass(frozen=True)
class Failure:
    prompt_id: str
    category: str
    turn: int
    assertion: str
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompt_id": self.prompt_id,
            "category": self.category,
            "turn": self.turn,
            "assertion": self.assertion,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class AuditSummary:
    """Counts over prompts (``total``/``passed``/``failed``/``by_category``), assertions,
    hallucinated turns, failed citations and fallback mistakes."""

    total: int
    passed: int
    failed: int
    pass_rate: float
    assertions_passed: int
    assertions_failed: int
    hallucinations: int
    citation_errors: int
    fallback_errors: int
    by_category: dict[str, CategoryCounts]
    failures: tuple[Failure, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "passed": self.passed,
            "failed": self.failed,
            "pass_rate": self.pass_rate,
            "assertions_passed": self.assertions_passed,
            "assertions_failed": self.assertions_failed,
            "hallucinations": self.hallucinations,
            "citation_errors": self.citation_errors,
            "fallback_errors": self.fallback_errors,
            "by_category": {name: counts.to_dict() for name, counts in self.by_category.items()},
            "failures": [failure.to_dict() for failure in self.failures],
        }


def answered_keys(records: Iterable[ResponseRecord]) -> set[TurnKey]:
    """The (prompt id, turn) of the records that got a reply (no error, some text)."""
    return {
        (record.prompt_id, record.turn)
        for record in records
        if record.error is None and record.response is not None
    }


def flagged_turns(
    rows: Iterable[AssertionRow], hallucinated_turns: Iterable[TurnKey]
) -> set[TurnKey]:
    """The turns that count as hallucinations: a claim verification found unsupported,
    contradicted or stale (``hallucinated_turns``), or a failed ``must_not_appear`` /
    ``must_not_assert``. The one definition behind the count, the gate and every rate the
    report shows (of answered turns)."""
    return set(hallucinated_turns) | {
        row.key
        for row in rows
        if row.assertion in (MUST_NOT_APPEAR, MUST_NOT_ASSERT) and not row.passed
    }


def summarize(
    rows: Sequence[AssertionRow],
    answered: Iterable[TurnKey] | None,
    hallucinated_turns: Iterable[TurnKey] = (),
) -> AuditSummary:
    """Summarise ``evaluate_audit``'s rows.

    ``hallucinated_turns`` are the (prompt id, turn) whose reply claim verification found
    unsupported or contradicted; a failed ``must_not_appear`` or ``must_not_assert`` adds its
    turn too. Only turns
    with a reply count (``answered``, see ``answered_keys``; None: every turn in ``rows``).
    The same function summarises the audit when it is scored and the report rebuilt from the
    warehouse, so both quote the same figures (fallback errors by ``rules.is_fallback_error``).
    ``hallucinations`` and ``fallback_errors`` count turns; ``citation_errors`` citations.
    """
    prompt_ok: dict[str, bool] = {}
    prompt_category: dict[str, str] = {}
    for row in rows:
        prompt_ok[row.prompt_id] = prompt_ok.get(row.prompt_id, True) and row.passed
        prompt_category.setdefault(row.prompt_id, row.category)

    turns = {row.key for row in rows}
    if answered is not None:
        turns &= set(answered)
    flagged = flagged_turns(rows, hallucinated_turns)

    by_category: dict[str, CategoryCounts] = {}
    for prompt_id, ok in prompt_ok.items():
        counts = by_category.get(prompt_category[prompt_id], CategoryCounts(0, 0))
        by_category[prompt_category[prompt_id]] = CategoryCounts(
            counts.passed + ok, counts.failed + (not ok)
        )

    total = len(prompt_ok)
    passed = sum(prompt_ok.values())
    assertions_passed = sum(row.passed for row in rows)
    return AuditSummary(
        total=total,
        passed=passed,
        failed=total - passed,
        pass_rate=passed / total if total else 0.0,
        assertions_passed=assertions_passed,
        assertions_failed=len(rows) - assertions_passed,
        hallucinations=len(flagged & turns),
        citation_errors=sum(row.citation_errors for row in rows),
        fallback_errors=sum(
            is_fallback_error(row.assertion, row.passed, row.expected_behavior, row.fell_back)
            for row in rows
        ),
        by_category=by_category,
        failures=tuple(
            Failure(row.prompt_id, row.category, row.turn, row.assertion, row.detail)
            for row in rows
            if not row.passed
        ),
    )
