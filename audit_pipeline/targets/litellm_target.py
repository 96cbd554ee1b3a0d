"""A target that asks a model through litellm, so one config line reaches any provider.

The runner owns retries (with backoff and attempt counts in the results), so litellm and the
provider SDK are told not to retry on their own: otherwise one logical attempt could hide
several HTTP calls and the attempt counts would lie.
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-list fetch at import

import litellm  # after the default above, which it reads at import time

from audit_pipeline.llm.litellm_io import is_transient
from audit_pipeline.targets.base import (
    RetryableTargetError,
    TargetConfigError,
    TargetError,
    TargetReply,
    TargetRequest,
    fingerprint_of,
    redact,
)
from audit_pipeline.targets.target_config import LiteLLMTargetConfig

# litellm prints a "Give Feedback / Get Help" banner to stdout on every failed call; in a batch
# audit each failure already becomes an error row, so the banner is only noise in the logs.
litellm.suppress_debug_info = True


class LiteLLMTarget:
    """Chat completion through ``litellm.completion``: system prompt, history, then the prompt."""

    kind = "litellm"

    def __init__(self, name: str, config: LiteLLMTargetConfig) -> None:
        self.name = name
        self.config = config
        self._api_key: str | None = None
        if config.api_key_env is not None:
            value = os.environ.get(config.api_key_env)
            if not value:
                raise TargetConfigError(
                    f"target {name!r}: environment variable {config.api_key_env} is not set; "
                    f"it must hold the API key for {config.model}"
                )
            self._api_key = value

    def __repr__(self) -> str:
        return f"LiteLLMTarget(name={self.name!r}, model={self.config.model!r})"

    def secrets(self) -> tuple[str, ...]:
        """The API key: never stored, even when the model repeats it (targets/secrets.py)."""
        return (self._api_key,) if self._api_key else ()

    def fingerprint(self) -> str:
        config = self.config
        return fingerprint_of(
            self.kind,
            {
                "model": config.model,
                "params": config.params,
                "api_base": config.api_base,
                "system_prompt": config.system_prompt,
            },
        )

    def answer(self, request: TargetRequest) -> TargetReply:
        config = self.config
        messages: list[dict[str, str]] = []
        if config.system_prompt:
            messages.append({"role": "system", "content": config.system_prompt})
        messages.extend({"role": turn.role, "content": turn.content} for turn in request.history)
        messages.append({"role": "user", "content": request.prompt})
        try:
            response = litellm.completion(
                model=config.model,
                messages=messages,
                timeout=config.timeout_s,
                api_key=self._api_key,
                api_base=config.api_base,
                max_retries=0,
                **config.params,
            )
        except Exception as exc:
            if is_transient(exc):
                raise RetryableTargetError(self._describe(exc)) from None
            raise TargetError(self._describe(exc)) from None
        return self._reply(response)

    def _reply(self, response: Any) -> TargetReply:
        try:
            content = response.choices[0].message.content
        except (AttributeError, IndexError, TypeError):
            raise TargetError(f"{self.config.model}: response has no choices[0].message") from None
        if not isinstance(content, str):
            raise TargetError(f"{self.config.model}: response has no text content")
        usage = getattr(response, "usage", None)
        return TargetReply(
            text=content,
            model=getattr(response, "model", None) or self.config.model,
            prompt_tokens=_int_or_none(getattr(usage, "prompt_tokens", None)),
            completion_tokens=_int_or_none(getattr(usage, "completion_tokens", None)),
            cost=_cost(response),
        )

    def _describe(self, exc: Exception) -> str:
        """The error as text, with the key scrubbed in case a provider echoed it."""
        secrets = [self._api_key] if self._api_key else []
        return redact(f"{self.config.model}: {type(exc).__name__}: {exc}", secrets)


def _cost(response: Any) -> float | None:
    """Provider price of the call; None for models litellm has no price for (local ones)."""
    try:
        cost = litellm.completion_cost(completion_response=response)
    except Exception:
        return None
    return float(cost) if isinstance(cost, int | float) else None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
