"""The contract between the audit runner and any system under audit.

A target turns one user message (plus the conversation so far) into a reply. Everything the
runner needs — retries, caching, batching — is decided from this small surface, so a new kind
of chatbot only has to implement ``answer``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class ChatTurn:
    """One earlier message of the conversation."""

    role: Role
    content: str


@dataclass(frozen=True)
class TargetRequest:
    """The message to answer; ``turn`` counts from 0 within the prompt's conversation."""

    prompt_id: str
    turn: int
    prompt: str
    history: tuple[ChatTurn, ...] = ()


@dataclass(frozen=True)
class TargetReply:
    """What the target said, with whatever metadata it knows.

    ``citations`` None means "parse them from the text"; ``context`` holds the passages the bot
    used when it can tell (a RAG bot, a replay with recorded context), which lets verification
    check faithfulness to what the bot actually saw.
    """

    text: str
    model: str | None = None
    citations: tuple[str, ...] | None = None
    context: tuple[str, ...] | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    # A self-correcting target (the vault bot's guardrail): generations made, and the path.
    guardrail_attempts: int | None = None
    guardrail_path: str | None = None


class TargetError(Exception):
    """A permanent failure: retrying the same request would fail the same way."""


class RetryableTargetError(TargetError):
    """A transient failure (timeout, 429, 5xx, connection): the runner retries with backoff.

    ``retry_after_s`` carries a server's Retry-After hint when it sent one.
    """

    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class TargetConfigError(TargetError):
    """The target cannot be built: bad configuration or a missing environment variable."""


@runtime_checkable
class Target(Protocol):
    """A system under audit. ``fingerprint`` hashes the non-secret configuration that shapes
    answers; it is part of every cache key, so changing the model or prompt template never
    serves stale answers, while changing a key or a timeout does not invalidate the cache."""

    name: str
    kind: str

    def fingerprint(self) -> str: ...

    def answer(self, request: TargetRequest) -> TargetReply: ...


# A target may set ``answers_by_prompt_id = True`` when its answer depends on the prompt id
# and turn, not only on the conversation (a replay of recorded answers): the response cache
# then keys on them as well.


@runtime_checkable
class BatchTarget(Target, Protocol):
    """A target that answers several independent requests at once (e.g. local generation).

    ``answer_batch`` returns one item per request, in order: a reply, or the exception that
    request failed with, so one bad item does not fail its neighbours.
    """

    batch_size: int

    def answer_batch(self, requests: Sequence[TargetRequest]) -> list[TargetReply | Exception]: ...


def supports_batches(target: Target) -> bool:
    """True when the runner should send each round of turns to ``target.answer_batch``."""
    size = getattr(target, "batch_size", None)
    return callable(getattr(target, "answer_batch", None)) and isinstance(size, int) and size >= 1


def close_target(target: Target) -> None:
    """Release what a target holds (HTTP connections, a loaded model) if it has ``close``."""
    close = getattr(target, "close", None)
    if callable(close):
        close()


class FingerprintPayload(BaseModel):
    """What a target fingerprint is the sha256 of: the kind and its answer-shaping settings.

    Never secrets: a fingerprint is part of every cache key and may be logged. Its JSON (keys
    sorted, values that are not JSON written as ``str``) defines every fingerprint, and so
    every cache key: changing it re-keys every cache, which needs a CACHE_FORMAT bump.
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    settings: dict[str, Any]

    def digest(self) -> str:
        text = json.dumps(self.model_dump(), sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fingerprint_of(kind: str, settings: dict[str, Any]) -> str:
    """sha256 of a target kind and its answer-shaping settings (never secrets)."""
    return FingerprintPayload(kind=kind, settings=settings).digest()


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace every secret value in ``text``; used on any message built from remote data.

    Servers and SDKs sometimes echo credentials in error bodies; error strings end up in result
    rows and logs, so they are scrubbed before they leave the target.
    """
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text
