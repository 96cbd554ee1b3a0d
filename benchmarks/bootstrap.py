"""Bootstrap 95 % intervals for the no-regression rule: is a verifier change worse than the
shipped one by more than the sets' own sampling noise?

Two snapshots (``benchmarks.verdict_snapshot``) of the same rows are compared *paired*: each
resample draws the same responses (RAGTruth, mean over the CV seeds) or the same pairs for
both, so the interval is the one of the difference after - before. A change passes when the
interval's upper end is at or above zero for F1 and balanced accuracy, that is, when the drop
is not beyond the interval. Where the older snapshot lacks per-response predictions, the
interval of the newer one's own figure is given, with the older figure beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Metric = Callable[[np.ndarray, np.ndarray], float]
RESAMPLES = 2000


def f1(predicted: np.ndarray, gold: np.ndarray) -> float:
    tp = float(np.sum(predicted & gold))
    fp = float(np.sum(predicted & ~gold))
    fn = float(np.sum(~predicted & gold))
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def balanced_accuracy(predicted: np.ndarray, gold: np.ndarray) -> float:
    positives, negatives = float(np.sum(gold)), float(np.sum(~gold))
    tpr = float(np.sum(predicted & gold)) / positives if positives else 0.0
    tnr = float(np.sum(~predicted & ~gold)) / negatives if negatives else 0.0
    return (tpr + tnr) / 2


METRICS: dict[str, Metric] = {"f1": f1, "balanced_accuracy": balanced_accuracy}


def _mean_over(runs: np.ndarray, gold: np.ndarray, metric: Metric) -> float:
    """``runs``: seeds x responses of predictions; the metric averaged over the seeds."""
    return float(np.mean([metric(run, gold) for run in runs]))


def paired_interval(
    before: Sequence[Sequence[bool]],
    after: Sequence[Sequence[bool]],
    gold: Sequence[bool],
    metric: Metric,
    seed: int = 0,
) -> dict[str, float]:
    """The figure before and after (mean over runs) and the 95 % interval of after - before,
    resampling the rows (responses or pairs) with replacement."""
    a, b = np.asarray(before, dtype=bool), np.asarray(after, dtype=bool)
    truth = np.asarray(gold, dtype=bool)
    rng = np.random.default_rng(seed)
    deltas = []
    for _ in range(RESAMPLES):
        rows = rng.integers(0, truth.size, truth.size)
        was = _mean_over(a[:, rows], truth[rows], metric)
        deltas.append(_mean_over(b[:, rows], truth[rows], metric) - was)
    low, high = np.percentile(deltas, [2.5, 97.5])
    return {
        "before": _mean_over(a, truth, metric),
        "after": _mean_over(b, truth, metric),
        "delta_low": float(low),
        "delta_high": float(high),
    }


def own_interval(
    runs: Sequence[Sequence[bool]], gold: Sequence[bool], metric: Metric, seed: int = 0
) -> dict[str, float]:
    """The figure (mean over runs) and its own 95 % interval over resampled rows."""
    r, truth = np.asarray(runs, dtype=bool), np.asarray(gold, dtype=bool)
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(RESAMPLES):
        rows = rng.integers(0, truth.size, truth.size)
        values.append(_mean_over(r[:, rows], truth[rows], metric))
    low, high = np.percentile(values, [2.5, 97.5])
    return {"value": _mean_over(r, truth, metric), "low": float(low), "high": float(high)}


def intervals(
    before: Sequence[Sequence[bool]] | None,
    after: Sequence[Sequence[bool]],
    gold: Sequence[bool],
) -> dict[str, Any]:
    """F1 and balanced accuracy: paired when both sides have their rows, else after's own."""
    if before is None:
        return {name: own_interval(after, gold, metric) for name, metric in METRICS.items()}
    return {name: paired_interval(before, after, gold, metric) for name, metric in METRICS.items()}
