"""The retrieval regression gate: this evaluation against a baseline one.

A baseline is an earlier ``retrieval-eval --json`` file (committed next to the golden set, or
kept by CI from the main branch). Every figure is diffed, overall and per collection; the gate
looks at the overall figures named in ``evaluation.max_drop`` (precision by default) and fails
when one dropped by more than its limit. Per-collection rows rest on a handful of queries each,
so they are shown, not gated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit_pipeline.evaluation.golden import GoldenSetError
from audit_pipeline.evaluation.retrieval_figures import FIGURES

_RATE_FIGURES = ("precision", "recall", "mrr", "abstention_rate")  # hit_precision: newer


class BaselineError(GoldenSetError):
    """The baseline file is missing or is not a retrieval-eval JSON document."""


@dataclass(frozen=True)
class FigureChange:
    scope: str  # "overall" or a collection name
    figure: str
    before: float | None
    after: float | None

    @property
    def delta(self) -> float | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before


@dataclass(frozen=True)
class GateResult:
    changes: tuple[FigureChange, ...]
    failures: tuple[str, ...]
    limits: Mapping[str, float]
    notes: tuple[str, ...] = field(default=())

    @property
    def passed(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "limits": dict(self.limits),
            "failures": list(self.failures),
            "notes": list(self.notes),
            "changes": [
                {
                    "scope": c.scope,
                    "figure": c.figure,
                    "before": c.before,
                    "after": c.after,
                    "delta": None if c.delta is None else round(c.delta, 4),
                }
                for c in self.changes
            ],
        }


def load_baseline(path: Path) -> dict[str, Any]:
    """A baseline written by ``retrieval-eval --json``, checked enough to compare against."""
    if not path.is_file():
        raise BaselineError(
            f"--baseline {path}: {'is a directory' if path.exists() else 'not found'}"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BaselineError(f"--baseline {path}: not a JSON document ({error})") from None
    overall = data.get("overall") if isinstance(data, dict) else None
    if not isinstance(overall, dict):
        raise BaselineError(
            f"--baseline {path}: field 'overall': missing (not a retrieval-eval --json file)"
        )
    for figure in _RATE_FIGURES:
        value = overall.get(figure)
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
            raise BaselineError(
                f"--baseline {path}: field 'overall.{figure}': a number in 0..1 is required"
            )
    per_collection = data.get("per_collection", {})
    if not isinstance(per_collection, dict):
        raise BaselineError(f"--baseline {path}: field 'per_collection': must be an object")
    return data


def compare(
    current: Mapping[str, Any], baseline: Mapping[str, Any], limits: Mapping[str, float]
) -> GateResult:
    """Diff ``current`` (``RetrievalEvalReport.to_dict()``) against ``baseline``."""
    changes = [
        FigureChange("overall", f, _number(baseline["overall"], f), _number(current["overall"], f))
        for f in FIGURES
    ]
    before_collections = baseline.get("per_collection", {})
    after_collections = current.get("per_collection", {})
    for name in [
        *after_collections,
        *(n for n in before_collections if n not in after_collections),
    ]:
        old = before_collections.get(name) or {}
        new = after_collections.get(name) or {}
        changes.extend(FigureChange(name, f, _number(old, f), _number(new, f)) for f in FIGURES)
    failures = []
    for figure, limit in limits.items():
        change = next(c for c in changes if c.scope == "overall" and c.figure == figure)
        if change.delta is not None and -change.delta > limit + 1e-9:
            failures.append(
                f"{figure} dropped {-change.delta * 100:.1f} points "
                f"({change.before:.3f} -> {change.after:.3f}; limit {limit * 100:.1f})"
            )
    notes = []
    if baseline.get("k") is not None and baseline.get("k") != current.get("k"):
        notes.append(
            f"the baseline scored the first {baseline.get('k')} hits, this evaluation the first "
            f"{current.get('k')}: precision@k and recall@k are not comparable"
        )
    if baseline.get("golden_hash") != current.get("golden_hash"):
        notes.append(
            f"the golden set changed since the baseline ({baseline.get('golden_hash')} -> "
            f"{current.get('golden_hash')}): the figures measure different queries"
        )
    return GateResult(tuple(changes), tuple(failures), dict(limits), tuple(notes))


def _number(values: Mapping[str, Any], name: str) -> float | None:
    value = values.get(name)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
