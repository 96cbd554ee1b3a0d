"""The headline numbers of a report, and the per-category table under them.

The engine computes the authoritative summary when it scores an audit and passes it in, so the
report and the CI gate quote the same figures. A report written later from the warehouse alone
(a notebook, an old audit) gets its numbers from the same counting function
(``scoring/audit_summary.py``) run over the stored rows, so no figure is counted by a rule of
the report's own; a partial summary is completed from the derived one rather than shown with
holes. Zones (the colour of a risk) come from ``scoring/rules.py``, the decision's own rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from audit_pipeline.records.assertions import AssertionRow
from audit_pipeline.reports.data import ReportData, Score
from audit_pipeline.scoring.audit_summary import AuditSummary, TurnKey, flagged_turns
from audit_pipeline.scoring.audit_summary import summarize as count_audit


@dataclass(frozen=True)
class CategoryRow:
    category: str
    passed: int
    failed: int
    risk: float | None
    previous_risk: float | None
    score: Score | None
    hallucination_rate: float | None = None  # hallucinated answers / answered, as the count

    @property
    def total(self) -> int:
        return self.passed + self.failed

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.total if self.total else None


@dataclass(frozen=True)
class Summary:
    total: int
    passed: int
    failed: int
    pass_rate: float | None
    assertions_passed: int
    assertions_failed: int
    hallucinations: int
    citation_errors: int
    fallback_errors: int
    categories: tuple[CategoryRow, ...]
    answered: int = 0  # turns that got an answer: the denominator of the hallucination rate

    @property
    def hallucination_rate(self) -> float | None:
        """``hallucinations`` over answered turns: the count's own definition, as a share."""
        return self.hallucinations / self.answered if self.answered else None


def by_risk(rows: Sequence[CategoryRow]) -> list[CategoryRow]:
    """Highest risk first (where a reader's attention should go), unknown risk last."""
    return sorted(rows, key=lambda r: (r.risk is None, -(r.risk or 0.0), r.category))


def summarize(data: ReportData, summary: Mapping[str, Any] | None = None) -> Summary:
    """The engine's ``summary`` where given, completed from the warehouse rows in ``data``."""
    given = dict(summary or {})
    derived = derive_summary(data)
    answered, rates = hallucination_rates(data)
    by_category = given.get("by_category") or {}
    rows = []
    for category in dict.fromkeys([*data.categories, *by_category]):
        mine = derived.by_category.get(category)
        theirs = by_category.get(category) or {}
        score = data.category_scores.get(category)
        previous = data.previous_category_scores.get(category)
        risk = _number(theirs.get("risk"))
        rows.append(
            CategoryRow(
                category=category,
                passed=int(theirs.get("passed", mine.passed if mine else 0)),
                failed=int(theirs.get("failed", mine.failed if mine else 0)),
                risk=risk if risk is not None else (score.risk if score else None),
                previous_risk=previous.risk if previous else None,
                score=score,
                hallucination_rate=rates.get(category),
            )
        )
    total = int(given.get("total", derived.total))
    passed = int(given.get("passed", derived.passed))
    rate = _number(given.get("pass_rate"))
    return Summary(
        total=total,
        passed=passed,
        failed=int(given.get("failed", derived.failed)),
        pass_rate=_fraction(rate) if rate is not None else (passed / total if total else None),
        assertions_passed=int(given.get("assertions_passed", derived.assertions_passed)),
        assertions_failed=int(given.get("assertions_failed", derived.assertions_failed)),
        hallucinations=int(given.get("hallucinations", derived.hallucinations)),
        citation_errors=int(given.get("citation_errors", derived.citation_errors)),
        fallback_errors=int(given.get("fallback_errors", derived.fallback_errors)),
        categories=tuple(rows),
        answered=answered,
    )


def derive_summary(data: ReportData) -> AuditSummary:
    """The audit summary the engine would have computed, from the rows the report read: the
    same function over the stored assertion rows, answered turns and hallucinated turns."""
    return count_audit(*_counted(data))


def hallucination_rates(data: ReportData) -> tuple[int, dict[str, float | None]]:
    """Answered turns, and per category the share of them that are hallucinations by the
    summary's own definition (``flagged_turns``): the report's rates and its count agree."""
    rows, answered, hallucinated = _counted(data)
    flagged = flagged_turns(rows, hallucinated) & answered
    categories = {(p.prompt_id, t.turn): p.category for p in data.prompts for t in p.turns}
    rates: dict[str, float | None] = {}
    for category in set(categories.values()):
        mine = {key for key in answered if categories[key] == category}
        rates[category] = len(flagged & mine) / len(mine) if mine else None
    return len(answered), rates


def _counted(data: ReportData) -> tuple[list[AssertionRow], set[TurnKey], set[TurnKey]]:
    """The stored assertion rows, answered turns and turns with a hallucinated claim."""
    rows = [
        AssertionRow(
            prompt_id=prompt.prompt_id,
            turn=turn.turn,
            category=prompt.category,
            assertion=result.assertion,
            passed=result.passed,
            detail=result.detail or "",
            expected_behavior=result.expected_behavior,
            fell_back=result.fell_back,
            citation_errors=result.citation_errors,
        )
        for prompt in data.prompts
        for turn in prompt.turns
        for result in turn.assertions
    ]
    keyed = [
        ((prompt.prompt_id, turn.turn), turn) for prompt in data.prompts for turn in prompt.turns
    ]
    answered = {key for key, turn in keyed if turn.error is None and turn.response is not None}
    hallucinated = {key for key, turn in keyed if turn.hallucinations}
    return rows, answered, hallucinated


def _number(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _fraction(value: float) -> float:
    """Pass rates are fractions; a percentage (e.g. 92.0) from a caller is accepted too."""
    return value / 100.0 if value > 1.0 else value
