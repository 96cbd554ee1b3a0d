"""Which LLM to call and how (model, key variable, base URL, parameters, timeout).

Shared by the LLM claim extractor, the LLM judge and the suite generator; a leaf so that none
of them imports another stage for it.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class JudgeSettings(BaseModel):
    """An LLM reached through litellm, for the ``llm`` extractor and the ``llm`` judge.

    The key is never written here: ``api_key_env`` names the environment variable that holds it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = "openai/gpt-4o-mini"
    api_key_env: str | None = None
    api_base: str | None = None
    params: dict[str, JsonValue] = Field(default_factory=dict)
    timeout_s: float = Field(default=60.0, gt=0)

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, name: str | None) -> str | None:
        if name is not None and not _ENV_NAME.match(name):
            raise ValueError(f"{name!r} is not an environment variable name")
        return name
