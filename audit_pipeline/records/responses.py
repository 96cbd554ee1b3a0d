"""The row every target call produces, successful or not, with the sources it cites.

Failures are rows too (``error`` set), so an audit always has one row per suite turn and a
report can say "no answer" instead of silently shrinking the denominator.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Citation:
    """One cited source. ``file`` is None when the label does not name a file (seed form);
    ``start``/``end`` are None when the target reported the citation outside the text."""

    label: str
    file: str | None
    section: str | None
    start: int | None
    end: int | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ResponseRecord:
    """One answered (or failed) turn of one prompt in one audit.

    ``latency_ms`` is the duration of the final attempt (for a cache hit: of the original call;
    for a batch: of the whole batch call); ``attempts`` counts calls made in this run (0 for a
    cache hit or a turn not sent because an earlier turn failed).
    """

    audit_id: str
    prompt_id: str
    turn: int
    target: str
    model: str | None
    prompt: str
    response: str | None
    citations: tuple[Citation, ...]
    context: tuple[str, ...] | None
    latency_ms: float | None
    prompt_tokens: int | None
    completion_tokens: int | None
    cost: float | None
    error: str | None
    attempts: int
    from_cache: bool
    started_at: datetime  # UTC
    finished_at: datetime  # UTC
    prompt_hash: str  # SuitePrompt.prompt_hash: which version of the prompt was asked
    guardrail_attempts: int | None = None  # TargetReply.guardrail_attempts
    guardrail_path: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_row(self) -> dict[str, Any]:
        """Plain values for a warehouse table: lists and dicts instead of tuples/dataclasses."""
        return {
            "audit_id": self.audit_id,
            "prompt_id": self.prompt_id,
            "turn": self.turn,
            "target": self.target,
            "model": self.model,
            "prompt": self.prompt,
            "response": self.response,
            "citations": [citation.to_dict() for citation in self.citations],
            "context": None if self.context is None else list(self.context),
            "latency_ms": self.latency_ms,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost": self.cost,
            "error": self.error,
            "attempts": self.attempts,
            "from_cache": self.from_cache,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "prompt_hash": self.prompt_hash,
            "guardrail_attempts": self.guardrail_attempts,
            "guardrail_path": self.guardrail_path,
        }
