"""Target configuration (the ``targets:`` section of audit.yaml) and the factory that builds
targets from it.

Configs hold names of environment variables, never secret values, so a config can be logged,
hashed into cache keys and committed. Each target kind validates its own fields up front: a
typo in a JSON path or a non-http URL fails when the audit starts, not after 200 requests.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from audit_pipeline.targets.base import TargetConfigError
from audit_pipeline.targets.jsonpath import JsonPathError, parse_path

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ENV_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# Header names that carry credentials: their values must come from headers_env.
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "cookie"}
)
# litellm.completion arguments the target sets itself; a secret never belongs in params.
RESERVED_PARAMS = frozenset(
    {"model", "messages", "api_key", "api_base", "base_url", "timeout", "stream", "max_retries"}
)
PROMPT = "{{prompt}}"
HISTORY = "{{history}}"
MESSAGES = "{{messages}}"


def _default_template() -> JsonValue:
    """The prompt and the earlier turns; typed as JSON so the field's default matches it."""
    return {"prompt": PROMPT, "history": HISTORY}


class _CommonTargetConfig(BaseModel):
    """Settings every target shares. They govern how the runner calls a target, not what it
    answers, so they are left out of the target fingerprint."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    timeout_s: float = Field(default=60.0, gt=0, description="per-call limit, seconds")
    max_retries: int = Field(default=3, ge=0, description="retries after the first attempt")
    concurrency: int = Field(default=4, ge=1, description="calls in flight at once")


class LiteLLMTargetConfig(_CommonTargetConfig):
    """Any model litellm can reach (``openai/gpt-4o-mini``, ``anthropic/...``, a local
    OpenAI-compatible server with ``api_base``)."""

    type: Literal["litellm"] = "litellm"
    model: str = Field(min_length=1)
    params: dict[str, JsonValue] = Field(default_factory=dict)
    api_key_env: str | None = None
    api_base: str | None = None
    system_prompt: str | None = None

    @field_validator("params")
    @classmethod
    def _no_reserved_params(cls, params: dict[str, JsonValue]) -> dict[str, JsonValue]:
        clash = sorted(RESERVED_PARAMS.intersection(params))
        if clash:
            raise ValueError(
                f"params may not set {', '.join(clash)}: the target sets them "
                "(a key goes in an environment variable named by api_key_env)"
            )
        return params

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, name: str | None) -> str | None:
        if name is not None and not ENV_NAME.match(name):
            raise ValueError(f"{name!r} is not an environment variable name")
        return name

    @field_validator("api_base")
    @classmethod
    def _api_base(cls, url: str | None) -> str | None:
        return None if url is None else _http_url(url)


class HttpTargetConfig(_CommonTargetConfig):
    """A chatbot behind an HTTP JSON endpoint.

    ``request_template`` is a JSON value in which the string ``"{{prompt}}"`` (also inside
    longer strings) becomes the user message, and the whole strings ``"{{history}}"`` /
    ``"{{messages}}"`` become the earlier turns / earlier turns plus the message, as lists of
    ``{"role", "content"}``. ``headers_env`` maps a header to an environment variable name, or
    to a string with ``${NAME}`` placeholders (``"Bearer ${BOT_TOKEN}"``).
    """

    type: Literal["http"] = "http"
    url: str
    headers: dict[str, str] = Field(default_factory=dict)
    headers_env: dict[str, str] = Field(default_factory=dict)
    request_template: JsonValue = Field(default_factory=_default_template)
    answer_path: str
    citations_path: str | None = None
    context_path: str | None = None
    max_body_bytes: int = Field(default=2_000_000, gt=0)

    @field_validator("url")
    @classmethod
    def _url(cls, url: str) -> str:
        return _http_url(url)

    @field_validator("answer_path", "citations_path", "context_path")
    @classmethod
    def _path(cls, path: str | None) -> str | None:
        if path is not None:
            try:
                parse_path(path)
            except JsonPathError as exc:
                raise ValueError(str(exc)) from None
        return path

    @field_validator("headers")
    @classmethod
    def _no_static_secrets(cls, headers: dict[str, str]) -> dict[str, str]:
        secret = sorted(name for name in headers if name.lower() in SECRET_HEADERS)
        if secret:
            raise ValueError(
                f"header {', '.join(secret)} carries a credential: move it to headers_env "
                "(header name -> environment variable name)"
            )
        return headers

    @field_validator("headers_env")
    @classmethod
    def _env_refs(cls, headers_env: dict[str, str]) -> dict[str, str]:
        for header, ref in headers_env.items():
            if not ENV_NAME.match(ref) and not ENV_PLACEHOLDER.search(ref):
                raise ValueError(
                    f"headers_env[{header!r}] must be an environment variable name or a string "
                    "with ${NAME} placeholders"
                )
        return headers_env

    @model_validator(mode="after")
    def _template_uses_prompt(self) -> HttpTargetConfig:
        strings = list(_strings(self.request_template))
        for text in strings:
            for marker in (HISTORY, MESSAGES):
                if marker in text and text != marker:
                    raise ValueError(f"request_template: {marker} must be a whole string value")
        if not any(PROMPT in text or text == MESSAGES for text in strings):
            raise ValueError(
                f"request_template never sends the prompt: use {PROMPT} or {MESSAGES} in it"
            )
        return self


class ReplayTargetConfig(_CommonTargetConfig):
    """Recorded answers (JSONL, CSV or Parquet) audited without calling any bot."""

    type: Literal["replay"] = "replay"
    path: Path
    match_on: Literal["prompt_id", "prompt", "auto"] = "auto"
    # The share of the audited turns the recording must answer; below it the audit is refused.
    min_coverage: float = Field(default=0.9, ge=0.0, le=1.0)


class VaultBotTargetConfig(_CommonTargetConfig):
    """The built-in reference RAG bot (implemented in ``vault_bot.py``)."""

    type: Literal["vault_bot"] = "vault_bot"
    model: str = "smollm2-135m-instruct"
    fallback_sentence: str = "I can't answer that from the trusted documents available to me."
    min_confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    top_k: int = Field(default=4, ge=1)
    max_new_tokens: int = Field(default=64, ge=1)
    # Questions the audit hands the bot at once, generated in one ``generate`` call (and their
    # failed answers regenerated in one more). How fast, never what: batched and single
    # answers are the same text. Measured on the sample suite (2 cores): 24 answered it in
    # 150 s where 8 took 180 s (fuller calls), 1 took 240 s.
    batch_size: int = Field(default=24, ge=1)
    # The guardrail (targets/guardrail.py): validate each answer before returning it.
    self_correct: bool = True
    guardrail_min_confidence: float = Field(default=0.4, ge=0.0, le=1.0)


TargetConfig = Annotated[
    LiteLLMTargetConfig | HttpTargetConfig | ReplayTargetConfig | VaultBotTargetConfig,
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[TargetConfig] = TypeAdapter(TargetConfig)


def parse_target_config(name: str, data: Mapping[str, Any]) -> TargetConfig:
    """Validate one target's settings; the error names the target and each bad field."""
    try:
        return _ADAPTER.validate_python(dict(data))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or '(target)'}: {error['msg']}"
            for error in exc.errors(include_url=False)
        )
        raise TargetConfigError(f"target {name!r}: {problems}") from None


def _http_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{url!r} is not an http(s) URL")
    return url


def _strings(value: JsonValue) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    return []
