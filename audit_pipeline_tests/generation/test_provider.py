"""The local model behind litellm: `litellm.completion(model="local/smollm2-135m-instruct")`."""

from __future__ import annotations

import asyncio

import litellm
import pytest

from audit_pipeline.generation import DEFAULT_LOCAL_MODEL
from audit_pipeline.generation.local_model import LocalChatModel
from audit_pipeline.generation.provider import LocalChatProvider, register_local_provider

pytestmark = pytest.mark.model

CAPITAL = [{"role": "user", "content": "What is the capital of France?"}]


@pytest.fixture(scope="module")
def provider(local_model: LocalChatModel) -> LocalChatProvider:
    return register_local_provider()


def _generate_calls(provider: LocalChatProvider) -> int:
    return sum(provider.batcher(DEFAULT_LOCAL_MODEL).batch_sizes.values())


def test_completion_returns_text_and_usage(provider: LocalChatProvider) -> None:
    response = litellm.completion(model=DEFAULT_LOCAL_MODEL, messages=CAPITAL, max_tokens=20)
    assert response.model == DEFAULT_LOCAL_MODEL
    assert "Paris" in response.choices[0].message.content
    assert response.choices[0].finish_reason == "stop"
    usage = response.usage
    assert usage.prompt_tokens > 5 and 0 < usage.completion_tokens <= 20
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_batch_completion_runs_as_one_generate_call(provider: LocalChatProvider) -> None:
    questions = ["What is 2 plus 2?", "Name a colour.", "What is the capital of France?"]
    conversations = [[{"role": "user", "content": q}] for q in questions]
    before = provider.batcher(DEFAULT_LOCAL_MODEL).batch_sizes.copy()

    responses = litellm.batch_completion(
        model=DEFAULT_LOCAL_MODEL, messages=conversations, max_tokens=16
    )

    after = provider.batcher(DEFAULT_LOCAL_MODEL).batch_sizes
    assert after - before == {3: 1}  # three litellm calls, one batched generate
    singles = [
        litellm.completion(model=DEFAULT_LOCAL_MODEL, messages=c, max_tokens=16)
        for c in conversations
    ]
    texts = [r.choices[0].message.content for r in responses]
    assert texts == [r.choices[0].message.content for r in singles]
    assert "Paris" in texts[2]


def test_stop_is_honoured_and_async_calls_work(provider: LocalChatProvider) -> None:
    response = asyncio.run(
        litellm.acompletion(model=DEFAULT_LOCAL_MODEL, messages=CAPITAL, max_tokens=20, stop=" is")
    )
    assert response.choices[0].message.content == "The capital of France"


def test_unknown_local_model_is_an_error_not_a_download(provider: LocalChatProvider) -> None:
    calls = _generate_calls(provider)
    with pytest.raises(litellm.exceptions.NotFoundError, match="unknown local model"):
        litellm.completion(model="local/llama-70b", messages=CAPITAL)
    assert _generate_calls(provider) == calls


def test_registration_is_idempotent(provider: LocalChatProvider) -> None:
    assert register_local_provider() is provider
    local = [e for e in litellm.custom_provider_map if e["provider"] == "local"]
    assert local == [{"provider": "local", "custom_handler": provider}]
