"""``checks: llm``: the relevance and usefulness critiques from a litellm model (litellm's own
``mock_response`` path, so the real litellm call, parsing and validation run), and the offline
scores when the reply is unusable."""

from __future__ import annotations

import json

import pytest

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.llm.judge_settings import JudgeSettings
from audit_pipeline.validation.critics import LLMCritic, OfflineCritic
from audit_pipeline.validation.settings import ValidationSettings
from audit_pipeline_tests.validation.sample_sources import BACKUP_SOURCES

QUESTION = "What is the recovery point objective of the Ledger module?"
ANSWER = "The RPO of the Ledger module is 1 hour."


def _critic(embedder: SentenceTransformerEmbedder, reply: str) -> LLMCritic:
    judge = JudgeSettings(model="openai/gpt-4o-mini", params={"mock_response": reply})
    settings = ValidationSettings(checks="llm", judge=judge)
    return LLMCritic(settings, OfflineCritic(embedder, settings))


def test_the_models_scores_are_used_when_the_reply_is_valid(
    embedder: SentenceTransformerEmbedder,
) -> None:
    reply = json.dumps({"relevance": [0.2, 0.9], "addresses": 0.8, "reasoning": "the RPO"})

    critique = _critic(embedder, reply).critique(QUESTION, ANSWER, BACKUP_SOURCES)

    assert critique.method == "llm:openai/gpt-4o-mini"
    assert critique.relevance == [0.2, 0.9] and critique.addresses == 0.8
    assert critique.notes == ("the RPO",)


@pytest.mark.parametrize(
    "reply",
    [
        "I think the sources are relevant.",  # no JSON at all
        json.dumps({"relevance": [0.9], "addresses": 0.8}),  # one score for two sources
        json.dumps({"relevance": [0.2, 1.7], "addresses": 0.8}),  # out of range
        json.dumps({"relevance": [0.2, 0.9], "addresses": "high"}),  # not a number
    ],
)
def test_an_unusable_reply_falls_back_to_the_offline_scores(
    embedder: SentenceTransformerEmbedder, reply: str
) -> None:
    settings = ValidationSettings()
    offline = OfflineCritic(embedder, settings).critique(QUESTION, ANSWER, BACKUP_SOURCES)

    critique = _critic(embedder, reply).critique(QUESTION, ANSWER, BACKUP_SOURCES)

    assert critique.method == "offline"
    assert critique.relevance == pytest.approx(offline.relevance)
    assert critique.addresses == pytest.approx(offline.addresses)
    assert critique.notes and "offline scores used" in critique.notes[0]
