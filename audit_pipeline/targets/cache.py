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
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from pydantic_core import PydanticSerializationError

from audit_pipeline.targets.base import TargetReply, TargetRequest

CACHE_FORMAT = 1
log = logging.getLogger(__name__)


class CachedReply(BaseModel):
    """One cache entry, exactly as it is stored on disk.

    Entries are read back from a directory other processes (and older versions) write to, so
    reading validates the whole entry (strictly: no number from a string or a boolean) and a
    file that does not validate is a miss, never a crash. The reply's fields are
    :class:`TargetReply`'s own, so the entry cannot drift from the reply it stores.
    """

    model_config = ConfigDict(strict=True, frozen=True)

    format: int  # required: a file without it is no entry of ours
    stored_at: datetime
    latency_ms: float | None
    reply: TargetReply

    @field_validator("format")
    @classmethod
    def _this_format(cls, value: int) -> int:
        if value != CACHE_FORMAT:
            raise ValueError(f"cache entry format {value}, expected {CACHE_FORMAT}")
        return value


class _KeyPayload(BaseModel):
    """What a cache key is the sha256 of.

    Its compact JSON (fields in this order, ``prompt`` left out when None) defines every key
    in every cache directory: a change here re-keys them all, so it must bump CACHE_FORMAT.
    """

    model_config = ConfigDict(frozen=True)

    format: int
    target: str
    conversation: list[tuple[str, str]]
    prompt: tuple[str, int] | None = None

    def digest(self) -> str:
        text = json.dumps(
            self.model_dump(exclude_none=True), ensure_ascii=False, separators=(",", ":")
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


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
        conversation = [(turn.role, turn.content) for turn in request.history]
        conversation.append(("user", request.prompt))
        return _KeyPayload(
            format=CACHE_FORMAT,
            target=fingerprint,
            conversation=conversation,
            prompt=(request.prompt_id, request.turn) if by_prompt_id else None,
        ).digest()

    def path_for(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedReply | None:
        """The stored reply, or None when absent or unreadable (a bad entry is a miss)."""
        path = self.path_for(key)
        try:
            return CachedReply.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValidationError) as exc:
            log.warning("ignoring unreadable cache entry %s: %s", path, type(exc).__name__)
            return None

    def put(self, key: str, reply: TargetReply, latency_ms: float | None) -> None:
        """Store ``reply``; raises TypeError for a reply holding a value JSON cannot carry."""
        path = self.path_for(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = CachedReply(
            format=CACHE_FORMAT, stored_at=datetime.now(UTC), latency_ms=latency_ms, reply=reply
        )
        handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(_serialised(entry))
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temp_name, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp_name)
            raise


def _serialised(entry: CachedReply) -> str:
    """The entry's JSON; a target bug (a reply field of the wrong type) is a TypeError."""
    try:
        return entry.model_dump_json()
    except PydanticSerializationError as error:
        raise TypeError(f"reply cannot be cached: {error}") from error
