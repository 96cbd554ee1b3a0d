"""Secrets the audit sent, echoed back in an answer, are cut out before the answer goes
anywhere.

An http target sends header values from the environment, a litellm target its API key. A bot
that repeats one in its answer would otherwise put it in DuckDB, the response cache, both
reports, the console and the Dagster run database. The runner replaces each occurrence with
``REDACTION_MARK`` as soon as the reply arrives (and again on the way out of the cache), and the
``secret_echo`` assertion fails for that turn: a bot that echoes credentials leaks them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from audit_pipeline.targets.base import TargetReply

REDACTION_MARK = "[REDACTED: a secret the audit sent]"
# Shorter values would blank out ordinary words; no real credential is this short.
MIN_SECRET_CHARS = 6


def target_secrets(target: object) -> tuple[str, ...]:
    """The values a target sends that must never be stored (its ``secrets()``), longest
    first, so a secret that contains another is replaced whole."""
    provider = getattr(target, "secrets", None)
    values = provider() if callable(provider) else ()
    usable = {
        value for value in values if isinstance(value, str) and len(value) >= MIN_SECRET_CHARS
    }
    return tuple(sorted(usable, key=len, reverse=True))


def _scrub(text: str, secrets: Iterable[str]) -> tuple[str, int]:
    count = 0
    for secret in secrets:
        found = text.count(secret)
        if found:
            count += found
            text = text.replace(secret, REDACTION_MARK)
    return text, count


def redact_reply(reply: TargetReply, secrets: tuple[str, ...]) -> TargetReply:
    """``reply`` with every secret in its text, citations and context replaced."""
    if not secrets:
        return reply
    text, _ = _scrub(reply.text, secrets)

    def scrub_all(values: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if values is None else tuple(_scrub(v, secrets)[0] for v in values)

    return replace(
        reply, text=text, citations=scrub_all(reply.citations), context=scrub_all(reply.context)
    )


def redactions_in(text: str | None) -> int:
    """How many secrets were cut out of a stored answer."""
    return 0 if not text else text.count(REDACTION_MARK)
