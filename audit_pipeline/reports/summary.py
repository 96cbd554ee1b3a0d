"""The headline numbers of a report, and the per-category table under them.

The engine computes the authoritative summary when it scores an audit and passes it in, so the
report and the CI gate quote the same figures. A report written later from the warehouse alone
(a notebook, an old audit) gets the same numbers derived from the stored rows; a partial summary
is completed from the derived one rather than shown with holes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from audit_pipeline.reports.data import PromptResult, ReportData, Score, Turn

Thresholds = tuple[float, float]  # (warn, block)
DEFAULT_THRESHOLDS: Thresholds = (0.10, 0.25)


@dataclass(frozen=True)
class CategoryRow:
    category: str
    passed: int
    failed: int
    risk: float | None
    previous_risk: float | None
    score: Score | None

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


def zone(risk: float | None, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> str | None:
    """The decision a risk value falls in: ``deploy`` below warn, ``block`` at or above block."""
    if risk is None:
        return None
    warn, block = thresholds
    if risk >= block:
        return "block"
    return "warn" if risk >= warn else "deploy"


def by_risk(rows: Sequence[CategoryRow]) -> list[CategoryRow]:
    """Highest risk first (where a reader's attention should go), unknown risk last."""
    return sorted(rows, key=lambda r: (r.risk is None, -(r.risk or 0.0), r.category))


def summarize(data: ReportData, summary: Mapping[str, Any] | None = None) -> Summary:
    """The engine's ``summary`` where given, completed from the warehouse rows in ``data``."""
    given = dict(summary or {})
    derived = _derive(data)
    by_category = given.get("by_category") or {}
    rows = []
    for category in dict.fromkeys([*data.categories, *by_category]):
        mine = derived.get(category, (0, 0))
        theirs = by_category.get(category) or {}
        score = data.category_scores.get(category)
        previous = data.previous_category_scores.get(category)
        risk = _number(theirs.get("risk"))
        rows.append(
            CategoryRow(
                category=category,
                passed=int(theirs.get("passed", mine[0])),
                failed=int(theirs.get("failed", mine[1])),
                risk=risk if risk is not None else (score.risk if score else None),
                previous_risk=previous.risk if previous else None,
                score=score,
            )
        )
    prompts = data.prompts
    turns = [turn for prompt in prompts for turn in prompt.turns]
    assertions = [a for turn in turns for a in turn.assertions]
    failed = sum(1 for p in prompts if p.is_failure)
    total = int(given.get("total", len(prompts)))
    passed = int(given.get("passed", len(prompts) - failed))
    rate = _number(given.get("pass_rate"))
    return Summary(
        total=total,
        passed=passed,
        failed=int(given.get("failed", failed)),
        pass_rate=_fraction(rate) if rate is not None else (passed / total if total else None),
        assertions_passed=int(given.get("assertions_passed", sum(a.passed for a in assertions))),
        assertions_failed=int(
            given.get("assertions_failed", sum(not a.passed for a in assertions))
        ),
        hallucinations=int(
            given.get("hallucinations", sum(len(p.hallucinations) for p in prompts))
        ),
        citation_errors=int(
            given.get(
                "citation_errors",
                sum(1 for a in assertions if a.is_citation and not a.passed),
            )
        ),
        fallback_errors=int(given.get("fallback_errors", sum(map(_fallback_error, turns)))),
        categories=tuple(rows),
    )


def _derive(data: ReportData) -> dict[str, tuple[int, int]]:
    counts: dict[str, tuple[int, int]] = {}
    prompt: PromptResult
    for prompt in data.prompts:
        passed, failed = counts.get(prompt.category, (0, 0))
        counts[prompt.category] = (
            (passed, failed + 1) if prompt.is_failure else (passed + 1, failed)
        )
    return counts


def _fallback_error(turn: Turn) -> bool:
    """A turn that should have fallen back and failed a check, or failed a fallback check."""
    failed = turn.failed_assertions
    if turn.expected_behavior == "fallback" and failed:
        return True
    return any("fallback" in a.assertion.lower() for a in failed)


def _number(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _fraction(value: float) -> float:
    """Pass rates are fractions; a percentage (e.g. 92.0) from a caller is accepted too."""
    return value / 100.0 if value > 1.0 else value
