"""Settings of the embedding circuit breaker (``reliability.embedding_breaker`` in audit.yaml).

The defaults suit a batch audit: three failures in a row is enough evidence that the embedding
service is down (a healthy local model never fails), thirty seconds is long enough for a
restarted service to come back, and two successes in a row guard against a single lucky call.
``fallback_penalty`` is the share taken off every BM25-only fused score, so evidence found
without embeddings ranks visibly lower than a hybrid hit would.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from audit_pipeline.reliability.circuit_breaker import CircuitBreaker


class BreakerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    failure_threshold: int = Field(default=3, ge=1)
    reset_timeout_s: float = Field(default=30.0, ge=0)
    success_threshold: int = Field(default=2, ge=1)
    fallback_penalty: float = Field(default=0.2, ge=0, le=1)

    def breaker(
        self, name: str = "embeddings", clock: Callable[[], float] = time.monotonic
    ) -> CircuitBreaker:
        """A new breaker with these thresholds; each caller owns the one it builds."""
        return CircuitBreaker(
            name,
            failure_threshold=self.failure_threshold,
            reset_timeout_s=self.reset_timeout_s,
            success_threshold=self.success_threshold,
            clock=clock,
        )
