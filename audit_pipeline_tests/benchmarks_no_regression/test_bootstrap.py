"""The no-regression rule's intervals (``benchmarks/bootstrap.py``): paired resampling of the
same rows gives no spread when nothing changed, and an interval clear of zero when a change
fixes many rows and breaks none."""

from __future__ import annotations

import random

from benchmarks.bootstrap import intervals


def _rows(size: int, seed: int) -> tuple[list[bool], list[bool]]:
    rng = random.Random(seed)
    gold = [rng.random() < 0.4 for _ in range(size)]
    predicted = [g if rng.random() < 0.7 else not g for g in gold]
    return gold, predicted


def test_the_same_predictions_differ_by_exactly_nothing() -> None:
    gold, predicted = _rows(300, 1)
    found = intervals([predicted], [predicted], gold)
    for figure in found.values():
        assert figure["before"] == figure["after"]
        assert figure["delta_low"] == figure["delta_high"] == 0.0


def test_a_change_that_fixes_rows_and_breaks_none_is_clear_of_zero() -> None:
    gold, predicted = _rows(400, 2)
    fixed = [g if i % 2 else p for i, (g, p) in enumerate(zip(gold, predicted, strict=True))]
    found = intervals([predicted, predicted], [fixed, fixed], gold)
    for figure in found.values():
        assert figure["after"] > figure["before"]
        assert 0.0 < figure["delta_low"] <= figure["delta_high"]


def test_without_the_older_rows_the_newer_figure_has_its_own_interval() -> None:
    gold, predicted = _rows(300, 3)
    found = intervals(None, [predicted], gold)
    for figure in found.values():
        assert figure["low"] < figure["value"] < figure["high"]
