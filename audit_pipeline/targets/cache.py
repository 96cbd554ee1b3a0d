"""A disk cache of target replies, so an unchanged (target, conversation) is not paid twice.

One JSON file per entry, written to a temporary file and renamed into place: concurrent
writers and a crash mid-write can leave a stray temp file, never a half-written entry. Only
successful replies are stored; entries hold reply data, never configuration or credentials.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from audit_pipeline.targets.base import TargetReply, TargetRequest

CACHE_FORMAT = 1
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CachedReply:
    reply: TargetReply
    latency_ms: float | None
    stored_at: datetime


class ResponseCache:
    """Directory-backed cache; safe to share between threads and processes."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.directory)!r})"

    @staticmethod
    def key(fingerprint: str, request: TargetRequest, *, by_prompt_id: bool = False) -> str:
        """sha256 of the target fingerprint and the whole conversation up to this message.

        For a chatbot the prompt id is not part of it: the same words to the same target are
        the same call. A target whose answer depends on the prompt id and turn too (a replay
        looks its answer up by id) passes ``by_prompt_id``: two prompts with the same words
        then never share an entry, so one recorded answer cannot stand in for another.
        """
        conversation = [[turn.role, turn.content] for turn in request.history]
        conversation.append(["user", request.prompt])
        payload: dict[str, Any] = {
            "format": CACHE_FORMAT,
            "target": fingerprint,
            "conversation": conversation,
        }
        if by_prompt_id:
            payload["prompt"] = [request.prompt_id, request.turn]
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def path_for(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedReply | None:
        """The stored reply, or None when absent or unreadable (a bad entry is a miss)."""
        path = self.path_for(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return _decode(data)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError, KeyError) as exc:
            log.warning("ignoring unreadable cache entry %s: %s", path, type(exc).__name__)
            return None

    def put(self, key: str, reply: TargetReply, latency_ms: float | None) -> None:
        path = self.path_for(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = {
            "format": CACHE_FORMAT,
            "stored_at": datetime.now(UTC).isoformat(),
            "latency_ms": latency_ms,
            "reply": asdict(reply),
        }
        handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(entry, stream, ensure_ascii=False)
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temp_name, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp_name)
            raise


def _decode(data: Any) -> CachedReply:
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
        raise ValueError("not a cache entry of this format")
    raw = data["reply"]
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
        raise ValueError("entry has no reply text")

    def strings(value: Any) -> tuple[str, ...] | None:
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ValueError("expected a list of strings")
        return tuple(value)

    def number(value: Any, kind: type) -> Any:
        if value is not None and (not isinstance(value, int | float) or isinstance(value, bool)):
            raise ValueError("expected a number")
        return None if value is None else kind(value)

    reply = TargetReply(
        text=raw["text"],
        model=raw.get("model") if isinstance(raw.get("model"), str) else None,
        citations=strings(raw.get("citations")),
        context=strings(raw.get("context")),
        prompt_tokens=number(raw.get("prompt_tokens"), int),
        completion_tokens=number(raw.get("completion_tokens"), int),
        cost=number(raw.get("cost"), float),
        guardrail_attempts=number(raw.get("guardrail_attempts"), int),
        guardrail_path=raw.get("guardrail_path")
        if isinstance(raw.get("guardrail_path"), str)
        else None,
    )
    return CachedReply(
        reply=reply,
        latency_ms=number(data.get("latency_ms"), float),
        stored_at=datetime.fromisoformat(data["stored_at"]),
    )
