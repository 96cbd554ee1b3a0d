"""What LLM calls spent, summed over a claim, an audit or a benchmark run.

A record of its own because every caller of an LLM (the judge, the LLM claim extractor, the
suite generator) reports it, verdicts carry it, and the warehouse stores it: none of them
should import another's package to do so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar


@dataclass(frozen=True)
class LLMUsage:
    """What LLM calls spent: how many, their tokens and their price in US dollars.

    A figure is ``None`` when any call it sums was not reported (litellm has no price for a
    self-hosted model): a total that silently leaves calls out would look right and be wrong.
    The default is "no call, nothing spent", which is exact for a verdict reached without an LLM.
    """

    calls: int = 0
    prompt_tokens: int | None = 0
    completion_tokens: int | None = 0
    cost_usd: float | None = 0.0

    def __add__(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(
            calls=self.calls + other.calls,
            prompt_tokens=_add(self.prompt_tokens, other.prompt_tokens),
            completion_tokens=_add(self.completion_tokens, other.completion_tokens),
            cost_usd=_add(self.cost_usd, other.cost_usd),
        )


_N = TypeVar("_N", int, float)


def _add(a: _N | None, b: _N | None) -> _N | None:
    return None if a is None or b is None else a + b
