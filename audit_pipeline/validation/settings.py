"""The ``validation:`` section of audit.yaml: Self-RAG thresholds and the citation rule."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from audit_pipeline.llm.judge_settings import JudgeSettings


class ValidationSettings(BaseModel):
    """Thresholds of the Self-RAG checks and the accept / retry / reject gate.

    ``relevance_floor`` / ``relevance_full`` map a question-source cosine similarity onto the
    0-1 relevance score (below the floor: 0, at or above full: 1); ``usefulness_*`` do the
    same for question-answer similarity. ``checks: llm`` asks ``judge`` (litellm) for the
    relevance and usefulness critiques instead; support always comes from the claim verdicts.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    accept_confidence: float = Field(default=0.7, ge=0.0, le=1.0)
    reject_confidence: float = Field(default=0.4, ge=0.0, le=1.0)
    relevant_score: float = Field(default=0.5, ge=0.0, le=1.0)  # isrel true at or above
    useful_score: float = Field(default=0.5, ge=0.0, le=1.0)  # isuse true at or above
    relevance_floor: float = Field(default=0.1, ge=-1.0, le=1.0)
    relevance_full: float = Field(default=0.5, ge=-1.0, le=1.0)
    usefulness_floor: float = Field(default=0.1, ge=-1.0, le=1.0)
    usefulness_full: float = Field(default=0.5, ge=-1.0, le=1.0)
    checks: Literal["offline", "llm"] = "offline"
    judge: JudgeSettings = JudgeSettings()
    # Any answer that is not fully_cited fails its prompt (assertion ``citation_class``).
    strict_citations: bool = False

    @model_validator(mode="after")
    def _ordered(self) -> ValidationSettings:
        if self.reject_confidence > self.accept_confidence:
            raise ValueError("reject_confidence must not exceed accept_confidence")
        if self.relevance_floor >= self.relevance_full:
            raise ValueError("relevance_floor must be below relevance_full")
        if self.usefulness_floor >= self.usefulness_full:
            raise ValueError("usefulness_floor must be below usefulness_full")
        return self
