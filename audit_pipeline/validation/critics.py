"""Relevance (isrel) and addresses-the-question (for isuse) critiques: offline or by an LLM.

The offline critic compares sentence embeddings (the same offline model as the vault index):
question against each source, question against the answer. The LLM critic asks a litellm
model with every piece of data fenced (the answer and the sources are untrusted text) and
validates its JSON; a reply that is not the JSON asked for falls back to the offline scores,
and the result says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from audit_pipeline.embedding import Embedder
from audit_pipeline.llm.litellm_io import (
    LLMOutputError,
    complete,
    fence,
    fence_rules,
    new_fence_tag,
    parse_json_object,
)
from audit_pipeline.validation.selfrag import scale
from audit_pipeline.validation.settings import ValidationSettings


@dataclass(frozen=True)
class Critique:
    relevance: list[float]  # 0-1 per source, in order
    addresses: float  # 0-1
    method: str
    notes: tuple[str, ...] = ()


class OfflineCritic:
    """Cosine similarity of sentence embeddings, scaled by the configured floor and full."""

    def __init__(self, embedder: Embedder, settings: ValidationSettings) -> None:
        self.embedder = embedder
        self.settings = settings

    def critique(self, question: str, answer: str, sources: Sequence[str]) -> Critique:
        texts = [question, answer or " ", *sources]
        vectors = self.embedder.embed(texts)
        question_vector = vectors[0]
        cosines = (vectors[2:] @ question_vector).tolist() if len(sources) else []
        s = self.settings
        relevance = [scale(float(c), s.relevance_floor, s.relevance_full) for c in cosines]
        addresses = 0.0
        if answer.strip():
            cosine = float(np.dot(vectors[1], question_vector))
            addresses = scale(cosine, s.usefulness_floor, s.usefulness_full)
        return Critique(relevance, addresses, "offline")


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    relevance: list[float] = Field(default_factory=list)
    addresses: float = Field(ge=0.0, le=1.0)
    reasoning: str = ""


class LLMCritic:
    """Seed 003's ISREL and ISUSE prompts, answered by a litellm model as validated JSON."""

    def __init__(
        self, settings: ValidationSettings, fallback: OfflineCritic, api_key: str | None = None
    ) -> None:
        self.settings = settings
        self.fallback = fallback
        self.api_key = api_key

    def _messages(self, question: str, answer: str, sources: Sequence[str]) -> list[dict]:
        tag = new_fence_tag()
        fenced = "\n".join(
            fence(f"SOURCE {i}", text, tag) for i, text in enumerate(sources, start=1)
        )
        return [
            {
                "role": "system",
                "content": "You grade retrieval-augmented answers. " + fence_rules(tag),
            },
            {
                "role": "user",
                "content": (
                    f"{fence('QUESTION', question, tag)}\n{fence('ANSWER', answer, tag)}\n"
                    f"{fenced}\n\nFor each source, how relevant is it for answering the "
                    "question (0 to 1)? How well does the answer address the question (0 to "
                    '1)? Reply with JSON only: {"relevance": [one number per source], '
                    '"addresses": number, "reasoning": "..."}'
                ),
            },
        ]

    def critique(self, question: str, answer: str, sources: Sequence[str]) -> Critique:
        judge = self.settings.judge
        params = dict(judge.params)
        if judge.api_base:
            params["api_base"] = judge.api_base
        if self.api_key:
            params["api_key"] = self.api_key
        try:
            text = complete(
                judge.model,
                self._messages(question, answer, sources),
                timeout=judge.timeout_s,
                **params,
            )
            reply = _Reply.model_validate(parse_json_object(text))
            if len(reply.relevance) != len(sources) or not all(
                0.0 <= r <= 1.0 for r in reply.relevance
            ):
                raise LLMOutputError("one relevance in [0, 1] per source was asked for")
        except Exception as error:  # a provider error or an unusable reply: offline scores
            offline = self.fallback.critique(question, answer, sources)
            note = f"LLM critique unusable ({type(error).__name__}); offline scores used"
            return Critique(offline.relevance, offline.addresses, "offline", (note,))
        return Critique(
            list(reply.relevance),
            reply.addresses,
            f"llm:{judge.model}",
            (reply.reasoning[:300],) if reply.reasoning else (),
        )
