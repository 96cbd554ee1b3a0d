from __future__ import annotations

import pytest

from audit_pipeline.targets import (
    HttpTargetConfig,
    LiteLLMTargetConfig,
    ReplayTargetConfig,
    TargetConfigError,
    VaultBotTargetConfig,
    parse_target_config,
)


def test_the_type_field_selects_the_config() -> None:
    kinds = {
        "litellm": ({"model": "openai/gpt-4o-mini"}, LiteLLMTargetConfig),
        "http": ({"url": "https://bot.example/api", "answer_path": "answer"}, HttpTargetConfig),
        "replay": ({"path": "answers.jsonl"}, ReplayTargetConfig),
        "vault_bot": ({}, VaultBotTargetConfig),
    }
    for kind, (fields, model) in kinds.items():
        config = parse_target_config(kind, {"type": kind, **fields})
        assert isinstance(config, model)
        assert (config.timeout_s, config.max_retries, config.concurrency) == (60, 3, 4)


def test_vault_bot_defaults() -> None:
    config = parse_target_config("vault", {"type": "vault_bot"})
    assert isinstance(config, VaultBotTargetConfig)
    assert config.model == "smollm2-135m-instruct"
    assert "trusted documents" in config.fallback_sentence
    assert config.batch_size >= 1 and config.top_k >= 1


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"type": "chatgpt"}, "does not match any of the expected tags"),
        ({"type": "litellm"}, "model: Field required"),
        ({"type": "litellm", "model": "m", "api_key_env": "sk-123"}, "not an environment"),
        ({"type": "litellm", "model": "m", "concurrency": 0}, "concurrency"),
        ({"type": "replay", "path": "a.jsonl", "match_on": "id"}, "match_on"),
    ],
)
def test_bad_configs_name_target_and_field(settings: dict[str, object], message: str) -> None:
    with pytest.raises(TargetConfigError) as caught:
        parse_target_config("mine", settings)
    assert "target 'mine'" in str(caught.value) and message in str(caught.value)
