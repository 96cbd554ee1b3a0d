"""Is audit B riskier than audit A, or is the difference noise?

Two audits of a nondeterministic bot never score the same, so a gate on "risk went up" fails on
noise, and a gate on a fixed margin misses a real regression in a small suite. The difference is
measured per prompt instead: each prompt answered in both audits is a pair, its risk change is
``risk_B - risk_A`` (an answer with no checkable claim, a clean fallback, counts as risk 0), and
a bootstrap over the prompts (resampled with replacement, a fixed seed so a CI job repeats
itself) gives a confidence interval for the mean change. The increase is significant when the
whole interval lies above 0: one prompt that flipped in a suite of dozens is not, a change
across many prompts is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

MIN_PAIRS = 2


@dataclass(frozen=True)
class RiskChange:
    prompts: int  # prompts answered in both audits
    before: float  # mean risk of those prompts in audit A
    after: float
    low: float  # confidence interval of the mean change
    high: float
    confidence: float
    samples: int
    changed: int  # prompts whose risk differs

    @property
    def change(self) -> float:
        return self.after - self.before

    @property
    def significant_increase(self) -> bool:
        return self.prompts >= MIN_PAIRS and self.low > 0

    @property
    def significant_decrease(self) -> bool:
        return self.prompts >= MIN_PAIRS and self.high < 0

    def describe(self) -> str:
        verdict = (
            "a significant increase"
            if self.significant_increase
            else "a significant decrease"
            if self.significant_decrease
            else "not significant"
        )
        return (
            f"risk {self.before:.3f} -> {self.after:.3f} ({self.change:+.3f}) over "
            f"{self.prompts} prompts answered in both ({self.changed} changed); "
            f"{self.confidence:.0%} CI [{self.low:+.3f}, {self.high:+.3f}]: {verdict}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompts": self.prompts,
            "changed": self.changed,
            "before": round(self.before, 4),
            "after": round(self.after, 4),
            "change": round(self.change, 4),
            "ci": [round(self.low, 4), round(self.high, 4)],
            "confidence": self.confidence,
            "samples": self.samples,
            "significant_increase": self.significant_increase,
            "significant_decrease": self.significant_decrease,
        }


def bootstrap_risk_change(
    before: Mapping[str, float],
    after: Mapping[str, float],
    *,
    samples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> RiskChange:
    """The mean per-prompt risk change over the prompts in both, with a bootstrap interval."""
    if not 0 < confidence < 1 or samples < 1:
        raise ValueError("confidence must be in (0, 1) and samples at least 1")
    pairs = sorted(set(before) & set(after))
    if not pairs:
        raise ValueError("the two audits have no answered prompt in common")
    old = np.array([before[p] for p in pairs])
    new = np.array([after[p] for p in pairs])
    diffs = new - old
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), size=(samples, len(diffs)))].mean(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return RiskChange(
        prompts=len(pairs),
        before=float(old.mean()),
        after=float(new.mean()),
        low=float(low),
        high=float(high),
        confidence=confidence,
        samples=samples,
        changed=int(np.count_nonzero(np.abs(diffs) > 1e-12)),
    )
