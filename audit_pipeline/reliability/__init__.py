"""Keeping the pipeline useful when a dependency fails: circuit breakers and their settings."""

from audit_pipeline.reliability.circuit_breaker import (
    BreakerState,
    CircuitBreaker,
    CircuitOpenError,
)
from audit_pipeline.reliability.settings import BreakerSettings

__all__ = ["BreakerSettings", "BreakerState", "CircuitBreaker", "CircuitOpenError"]
