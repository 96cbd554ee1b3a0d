"""A target that posts to any chatbot's HTTP JSON endpoint.

The request body is built by substituting into the parsed template (never by formatting a JSON
string), so quotes or braces in a prompt cannot break or inject into the request. The reply is
untrusted: its size is capped while reading, and each extracted value is type-checked.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import httpx
from pydantic import JsonValue

from audit_pipeline.targets.base import (
    ChatTurn,
    RetryableTargetError,
    TargetConfigError,
    TargetError,
    TargetReply,
    TargetRequest,
    fingerprint_of,
    redact,
)
from audit_pipeline.targets.jsonpath import JsonPathError, get_path
from audit_pipeline.targets.target_config import (
    ENV_NAME,
    ENV_PLACEHOLDER,
    HISTORY,
    MESSAGES,
    PROMPT,
    HttpTargetConfig,
)

SNIPPET_CHARS = 200


class HttpTarget:
    """POST the rendered template to ``url``; read answer, citations and context by JSON path.

    Holds a pooled ``httpx.Client`` (thread-safe); call ``close()`` or use it as a context
    manager when done.
    """

    kind = "http"

    def __init__(self, name: str, config: HttpTargetConfig) -> None:
        self.name = name
        self.config = config
        secret_headers, variables = _env_headers(name, config.headers_env)
        # Whole header values and the variables inside them ("Bearer ${TOKEN}" -> the token).
        self._secrets = tuple(dict.fromkeys([*secret_headers.values(), *variables]))
        self._client = httpx.Client(
            headers={**config.headers, **secret_headers},
            timeout=httpx.Timeout(config.timeout_s),
            follow_redirects=False,  # a redirect could carry credentials to another host
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
        )

    def __repr__(self) -> str:
        return f"HttpTarget(name={self.name!r}, url={self.config.url!r})"

    def __enter__(self) -> HttpTarget:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def secrets(self) -> tuple[str, ...]:
        """Values this target sends that must never be stored (see targets/secrets.py)."""
        return self._secrets

    def fingerprint(self) -> str:
        config = self.config
        return fingerprint_of(
            self.kind,
            {
                "url": config.url,
                "headers": config.headers,
                # Which variables feed which headers, never their values.
                "headers_env": config.headers_env,
                "request_template": config.request_template,
                "answer_path": config.answer_path,
                "citations_path": config.citations_path,
                "context_path": config.context_path,
            },
        )

    def answer(self, request: TargetRequest) -> TargetReply:
        config = self.config
        body = render_template(config.request_template, request.prompt, request.history)
        deadline = time.monotonic() + config.timeout_s
        try:
            with self._client.stream("POST", config.url, json=body) as response:
                status = response.status_code
                raw, too_big = self._read_capped(response, deadline)
                retry_after = _retry_after(response.headers.get("retry-after"))
        except httpx.TimeoutException:
            raise RetryableTargetError(
                f"{config.url}: no complete answer within {config.timeout_s:g} s"
            ) from None
        except httpx.TransportError as exc:
            raise RetryableTargetError(
                self._scrub(f"{config.url}: connection failed ({type(exc).__name__}: {exc})")
            ) from None
        if status == 429 or status >= 500:
            raise RetryableTargetError(self._status_message(status, raw, too_big), retry_after)
        if not 200 <= status < 300:
            raise TargetError(self._status_message(status, raw, too_big))
        if too_big:
            raise TargetError(
                f"{config.url}: response body larger than {config.max_body_bytes} bytes; "
                "raise max_body_bytes if this is expected"
            )
        try:
            document = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            body = _snippet(raw, self._secrets)
            raise TargetError(f"{config.url}: response is not JSON ({exc}); body: {body}") from None
        return self._reply(document)

    def _read_capped(self, response: httpx.Response, deadline: float) -> tuple[bytes, bool]:
        """Read at most ``max_body_bytes``; (body, True) when there was more.

        httpx's timeout applies per read, so a server trickling bytes could stall a call
        forever; the total deadline is enforced here.
        """
        limit = self.config.max_body_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            return b"", True
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > limit:
                return b"".join(chunks), True
            chunks.append(chunk)
            if time.monotonic() > deadline:
                raise httpx.ReadTimeout("total deadline exceeded")
        return b"".join(chunks), False

    def _reply(self, document: Any) -> TargetReply:
        config = self.config
        try:
            text = get_path(document, config.answer_path)
        except JsonPathError as exc:
            raise TargetError(f"{config.url}: answer_path not found: {exc}") from None
        if not isinstance(text, str):
            raise TargetError(
                f"{config.url}: answer_path {config.answer_path!r} holds "
                f"{type(text).__name__}, expected a string"
            )
        citations: tuple[str, ...] | None = None
        if config.citations_path is not None:
            citations = self._strings(document, config.citations_path, "citations_path") or ()
        context = None
        if config.context_path is not None:
            context = self._strings(document, config.context_path, "context_path")
        return TargetReply(text=text, citations=citations, context=context)

    def _strings(self, document: Any, path: str, setting: str) -> tuple[str, ...] | None:
        """A string or list of strings (or of objects with text/content/label) at ``path``;
        None when the reply has nothing there (e.g. a fallback answer without sources)."""
        try:
            value = get_path(document, path)
        except JsonPathError:
            return None
        if value is None:
            return None
        items = value if isinstance(value, list) else [value]
        strings: list[str] = []
        for index, item in enumerate(items):
            if isinstance(item, dict):
                item = next(
                    (item[k] for k in ("text", "content", "label", "source") if k in item), item
                )
            if not isinstance(item, str):
                raise TargetError(
                    f"{self.config.url}: {setting} {path!r} item {index} is "
                    f"{type(item).__name__}, expected a string"
                )
            strings.append(item)
        return tuple(strings)

    def _status_message(self, status: int, raw: bytes, too_big: bool = False) -> str:
        if too_big and not raw:
            body = f"(body larger than {self.config.max_body_bytes} bytes, not read)"
        else:
            body = _snippet(raw, self._secrets)
        return f"{self.config.url}: HTTP {status}: {body}"

    def _scrub(self, message: str) -> str:
        return redact(message, self._secrets)


def render_template(template: JsonValue, prompt: str, history: tuple[ChatTurn, ...]) -> JsonValue:
    """Substitute the prompt and history into a parsed JSON template (see HttpTargetConfig)."""
    earlier: list[JsonValue] = [{"role": turn.role, "content": turn.content} for turn in history]

    def fill(value: JsonValue) -> JsonValue:
        if isinstance(value, str):
            if value == HISTORY:
                return list(earlier)
            if value == MESSAGES:
                return [*earlier, {"role": "user", "content": prompt}]
            return value.replace(PROMPT, prompt)
        if isinstance(value, list):
            return [fill(item) for item in value]
        if isinstance(value, dict):
            return {key: fill(item) for key, item in value.items()}
        return value

    return fill(template)


def _env_headers(name: str, headers_env: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """Header values from the environment, and the variables' own values; all missing
    variables are named in one error."""
    values: dict[str, str] = {}
    variables: list[str] = []
    missing: list[str] = []
    for header, ref in headers_env.items():
        names = [ref] if ENV_NAME.match(ref) else ENV_PLACEHOLDER.findall(ref)
        absent = [var for var in names if not os.environ.get(var)]
        if absent:
            missing.extend(f"{var} (header {header})" for var in absent)
            continue
        variables.extend(os.environ[var] for var in names)
        if ENV_NAME.match(ref):
            values[header] = os.environ[ref]
        else:
            values[header] = ENV_PLACEHOLDER.sub(lambda m: os.environ[m.group(1)], ref)
    if missing:
        raise TargetConfigError(
            f"target {name!r}: environment variable(s) not set: {', '.join(missing)}"
        )
    return values, variables


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None  # HTTP-date form: fall back to the runner's backoff


def _snippet(raw: bytes, secrets: tuple[str, ...]) -> str:
    """The start of a body for an error message; secrets are scrubbed before cutting, so a
    cut cannot leave half a secret behind."""
    text = " ".join(redact(raw.decode("utf-8", errors="replace"), secrets).split())
    return (text[:SNIPPET_CHARS] + "...") if len(text) > SNIPPET_CHARS else text or "(empty body)"
