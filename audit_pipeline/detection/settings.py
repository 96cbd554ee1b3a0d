"""Settings of the detection stages: claim extraction, evidence and verification."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

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


class DetectionSettings(BaseModel):
    """The ``detection:`` section of audit.yaml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    extractor: Literal["sentences", "llm"] = "sentences"
    evidence_top_k: int = Field(default=5, ge=1)
    verifier: Literal["local", "llm", "cascade"] = "local"
    # Claims whose local probability of being supported falls in this band go to the judge.
    cascade_band: tuple[float, float] = (0.35, 0.65)
    judge: JudgeSettings = JudgeSettings()
    # Claims checked per answer (the first ones in the text); the rest are counted as capped.
    max_claims_per_answer: int = Field(default=50, ge=1)

    @model_validator(mode="after")
    def _band(self) -> DetectionSettings:
        low, high = self.cascade_band
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError("cascade_band must satisfy 0 <= low <= high <= 1")
        return self
