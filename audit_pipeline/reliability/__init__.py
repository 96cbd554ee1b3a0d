"""Keeping the pipeline useful when a dependency fails: circuit breakers and their settings."""

from audit_pipeline.reliability.breaker_settings import BreakerSettings
from audit_pipeline.reliability.circuit_breaker import (
    BreakerState,
    CircuitBreaker,
    CircuitOpenError,
)

__all__ = ["BreakerSettings", "BreakerState", "CircuitBreaker", "CircuitOpenError"]
