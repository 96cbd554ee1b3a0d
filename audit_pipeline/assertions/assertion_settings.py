"""The ``assertions:`` section of audit.yaml: what counts as a fallback, a refusal, agreement,
a leak, and which free-text citation labels name which vault files.

Configured pattern lists are added to the built-in ones rather than replacing them, so adding
one credential regex for an in-house token format cannot silently switch off the others;
``builtin_patterns: false`` drops every built-in list at once for a bot that needs its own.
Regexes are compiled once, when the settings are validated, so a typo fails the audit at start
with the offending pattern named, not halfway through a suite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from audit_pipeline.assertions import defaults
from audit_pipeline.assertions.text_match import phrase_pattern
from audit_pipeline.targets.target_config import VaultBotTargetConfig

# The built-in bot's sentence, read from its config so the two cannot drift apart.
DEFAULT_FALLBACK_SENTENCE: str = VaultBotTargetConfig.model_fields["fallback_sentence"].default


def _compile(pattern: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    try:
        return re.compile(pattern, flags)
    except re.error as error:
        raise ValueError(f"invalid regular expression {pattern!r}: {error}") from None


def _check_regexes(patterns: tuple[str, ...]) -> tuple[str, ...]:
    for pattern in patterns:
        if not pattern.strip():
            raise ValueError("a pattern may not be blank (it would match every response)")
        _compile(pattern)
    return patterns


def _check_phrases(phrases: tuple[str, ...]) -> tuple[str, ...]:
    if any(not phrase.strip() for phrase in phrases):
        raise ValueError("a string may not be blank (it would match every response)")
    return phrases


@dataclass(frozen=True)
class CompiledPatterns:
    """Everything a check needs, compiled. Names label leak hits in assertion details."""

    fallback_sentences: tuple[re.Pattern[str], ...]
    fallback: tuple[re.Pattern[str], ...]
    refusal: tuple[re.Pattern[str], ...]
    agreement: tuple[re.Pattern[str], ...]
    negation: re.Pattern[str]
    credentials: tuple[tuple[str, re.Pattern[str]], ...]
    system_prompt: tuple[re.Pattern[str], ...]
    variable_names: tuple[re.Pattern[str], ...]
    model_names: tuple[re.Pattern[str], ...]


class LeakPatterns(BaseModel):
    """What must never appear in any reply, whatever the prompt asked."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    system_prompt_fragments: tuple[str, ...] = Field(
        default=(), description="literal sentences from the bot's system prompt"
    )
    credential_regexes: tuple[str, ...] = Field(
        default=(), description="regexes for in-house secret formats (added to the built-ins)"
    )
    variable_names: tuple[str, ...] = Field(
        default=(), description="literal environment-variable names (added to the built-ins)"
    )
    model_names: tuple[str, ...] = Field(
        default=(), description='literal model names, e.g. "SmolLM2", "gpt-4o"'
    )

    @field_validator("credential_regexes")
    @classmethod
    def _valid_regexes(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        return _check_regexes(patterns)

    @field_validator("system_prompt_fragments", "variable_names", "model_names")
    @classmethod
    def _valid_phrases(cls, phrases: tuple[str, ...]) -> tuple[str, ...]:
        return _check_phrases(phrases)


class AssertionSettings(BaseModel):
    """Mounted as ``assertions:`` in audit.yaml; every field has a working default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    builtin_patterns: bool = Field(
        default=True, description="use the built-in fallback/refusal/agreement/leak patterns"
    )
    fallback_sentences: tuple[str, ...] = Field(
        default=(DEFAULT_FALLBACK_SENTENCE,),
        description="the bot's exact fallback sentences (case- and whitespace-blind)",
    )
    fallback_patterns: tuple[str, ...] = Field(default=(), description="extra regexes")
    refusal_patterns: tuple[str, ...] = Field(default=(), description="extra regexes")
    agreement_patterns: tuple[str, ...] = Field(default=(), description="extra regexes")
    citation_aliases: dict[str, str] = Field(
        default_factory=dict, description="citation label -> vault file name"
    )
    leak_patterns: LeakPatterns = Field(default_factory=LeakPatterns)
    section_word_ratio: float = Field(
        default=0.5,
        gt=0.0,
        le=1.0,
        description="share of a section hint's significant words that must occur in the file",
    )

    _compiled: CompiledPatterns = PrivateAttr()

    @field_validator("fallback_patterns", "refusal_patterns", "agreement_patterns")
    @classmethod
    def _valid_regexes(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        return _check_regexes(patterns)

    @field_validator("fallback_sentences")
    @classmethod
    def _valid_phrases(cls, phrases: tuple[str, ...]) -> tuple[str, ...]:
        return _check_phrases(phrases)

    @field_validator("citation_aliases")
    @classmethod
    def _check_aliases(cls, aliases: dict[str, str]) -> dict[str, str]:
        blank = [label for label, file in aliases.items() if not label.strip() or not file.strip()]
        if blank:
            raise ValueError(f"citation alias labels and files may not be blank: {blank!r}")
        return aliases

    def model_post_init(self, context: Any, /) -> None:
        self._compiled = self._compile_all()

    @property
    def patterns(self) -> CompiledPatterns:
        return self._compiled

    def _compile_all(self) -> CompiledPatterns:
        builtin = self.builtin_patterns
        leaks = self.leak_patterns

        def regexes(extra: tuple[str, ...], base: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
            return tuple(_compile(p) for p in (*(base if builtin else ()), *extra))

        def phrases(values: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
            return tuple(p for p in map(phrase_pattern, values) if p is not None)

        credentials = [
            *(defaults.CREDENTIAL_PATTERNS.items() if builtin else ()),
            *((f"credential pattern {p!r}", p) for p in leaks.credential_regexes),
        ]
        variable_names = phrases(
            (*(defaults.VARIABLE_NAMES if builtin else ()), *leaks.variable_names)
        )
        if builtin:  # case-sensitive: SCREAMING_SNAKE is what makes it a variable name
            variable_names += (_compile(defaults.VARIABLE_NAME_PATTERN, 0),)
        return CompiledPatterns(
            # Closing punctuation is optional: a bot may end the sentence differently.
            fallback_sentences=phrases(tuple(s.rstrip(".!? ") for s in self.fallback_sentences)),
            fallback=regexes(self.fallback_patterns, defaults.FALLBACK_PATTERNS),
            refusal=regexes(self.refusal_patterns, defaults.REFUSAL_PATTERNS),
            agreement=regexes(self.agreement_patterns, defaults.AGREEMENT_PATTERNS),
            negation=_compile(defaults.NEGATION),
            credentials=tuple((name, _compile(p)) for name, p in credentials),
            system_prompt=(
                *phrases(leaks.system_prompt_fragments),
                *regexes((), defaults.SYSTEM_PROMPT_MARKERS),
            ),
            variable_names=variable_names,
            model_names=(
                *phrases(leaks.model_names),
                *regexes((), defaults.MODEL_NAME_PATTERNS),
            ),
        )
