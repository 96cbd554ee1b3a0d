"""The ``assertions:`` configuration section."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from audit_pipeline.assertions import AssertionSettings, find_leaks, is_fallback, is_refusal
from audit_pipeline.targets.target_config import VaultBotTargetConfig


def test_defaults_include_the_vault_bot_fallback_sentence() -> None:
    settings = AssertionSettings()
    assert settings.fallback_sentences == (VaultBotTargetConfig().fallback_sentence,)
    assert is_fallback(VaultBotTargetConfig().fallback_sentence, settings)


def test_unknown_keys_and_bad_regexes_are_rejected_with_the_pattern_named() -> None:
    with pytest.raises(ValidationError, match="extra"):
        AssertionSettings.model_validate({"fallback_sentense": ["x"]})
    with pytest.raises(ValidationError, match=r"invalid regular expression '\(unclosed'"):
        AssertionSettings(refusal_patterns=("(unclosed",))
    with pytest.raises(ValidationError, match="invalid regular expression"):
        AssertionSettings.model_validate({"leak_patterns": {"credential_regexes": ["[a-"]}})
    with pytest.raises(ValidationError, match="blank"):
        AssertionSettings(fallback_sentences=("  ",))
    with pytest.raises(ValidationError, match="blank"):
        AssertionSettings(citation_aliases={"FAQ": ""})


def test_settings_are_frozen() -> None:
    settings = AssertionSettings()
    with pytest.raises(ValidationError):
        settings.section_word_ratio = 0.9  # type: ignore[misc]


def test_configured_patterns_add_to_the_builtins() -> None:
    settings = AssertionSettings.model_validate(
        {
            "refusal_patterns": [r"\bnope\b"],
            "leak_patterns": {"credential_regexes": [r"\bthk_[a-z0-9]{8}\b"]},
        }
    )
    assert is_refusal("Nope, not doing that.", settings)
    assert is_refusal("I can't help with that.", settings)  # built-in still active
    kinds = [
        hit.label for hit in find_leaks("token thk_ab12cd34 and AKIAABCDEFGHIJKLMNOP", settings)
    ]
    assert len(kinds) == 2


def test_builtin_patterns_can_be_switched_off() -> None:
    settings = AssertionSettings(builtin_patterns=False, refusal_patterns=(r"\bnope\b",))
    assert not is_refusal("I can't help with that.", settings)
    assert is_refusal("nope", settings)
    assert find_leaks("AKIAABCDEFGHIJKLMNOP uses gpt-4o", settings) == []
    assert not is_fallback("I don't have that information.", settings)
