"""Settings of the embedding circuit breaker (``reliability.embedding_breaker`` in audit.yaml).

The defaults suit a batch audit: three failed calls in a row is enough evidence that the
embedding service is down (a healthy local model never fails, and a provider client has already
retried each call), thirty seconds is long enough for a restarted service to come back, and two
successes in a row guard against a single lucky call. ``fallback_penalty`` is the share taken
off every BM25-only fused score, so evidence found without embeddings ranks visibly lower than
a hybrid hit would. This is the one place the thresholds are validated.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class BreakerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    failure_threshold: int = Field(default=3, ge=1)
    reset_timeout_s: float = Field(default=30.0, ge=0)
    success_threshold: int = Field(default=2, ge=1)
    fallback_penalty: float = Field(default=0.2, ge=0, le=1)
