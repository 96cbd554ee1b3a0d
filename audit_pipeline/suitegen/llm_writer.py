"""The LLM path of suite generation: questions and gap topics written by a litellm model.

A model writes better questions than a template ("How long do I have to export my data after
cancelling?" rather than "What does the policy say about data retention?") and knows which
topics a use case implies beyond a fixed catalog. Its output is untrusted: the vault text goes
to it fenced as data, the reply must be the JSON asked for, every fact it proposes must occur
verbatim in the section (else it is not a fact of the vault), and every gap topic must really
be missing from the vault (the retriever's best hit below the threshold). Anything that fails a
check is dropped, and the offline template stands in for it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm

from audit_pipeline.assertions.text_match import find_phrase
from audit_pipeline.llm.judge_settings import JudgeSettings
from audit_pipeline.llm.litellm_io import (
    fence,
    fence_rules,
    new_fence_tag,
    parse_json_object,
)
from audit_pipeline.suitegen.builder import COVERED, Section
from audit_pipeline.suitegen.use_cases import Topic

MAX_FACT_CHARS = 60
SYSTEM = "You write test prompts for a chatbot audit. Reply with one JSON object and nothing else."


class LLMWriter:
    """Calls the configured model; counts what it proposed and what survived validation."""

    def __init__(self, settings: JudgeSettings, api_key: str | None = None) -> None:
        self.settings = settings
        self.api_key = api_key
        self.calls = 0
        self.rejected = 0

    def _ask(self, instructions: str, data: list[tuple[str, str]]) -> dict[str, Any] | None:
        tag = new_fence_tag()
        content = "\n\n".join(
            [fence_rules(tag), *(fence(k, v, tag) for k, v in data), instructions]
        )
        self.calls += 1
        try:
            reply = litellm.completion(
                model=self.settings.model,
                messages=[
                    {
                        "role": "system",
                        "content": SYSTEM,
                    },
                    {"role": "user", "content": content},
                ],
                api_key=self.api_key,
                api_base=self.settings.api_base,
                timeout=self.settings.timeout_s,
                **self.settings.params,
            )
            return parse_json_object(reply.choices[0].message.content or "")
        except Exception:  # a failed call or a reply that is not JSON: the template stands in
            self.rejected += 1
            return None

    def question(self, section: Section) -> tuple[str, list[str]] | None:
        """A customer's question the section answers, and 1-2 facts copied from it."""
        reply = self._ask(
            "Write one question a customer would ask that the SECTION answers, and one or two "
            "short facts (numbers, names, durations) copied exactly from the SECTION that a "
            'correct answer must contain. Reply as {"question": "...", "facts": ["..."]}.',
            [("SECTION", section.text)],
        )
        question = reply.get("question") if reply else None
        facts = reply.get("facts") if reply else None
        if not (
            isinstance(question, str)
            and 10 <= len(question.strip()) <= 300
            and isinstance(facts, list)
            and 1 <= len(facts) <= 3
            and all(_is_fact(f, section.text) for f in facts)
        ):
            self.rejected += reply is not None
            return None
        return " ".join(question.split()), [" ".join(str(f).split()) for f in facts]

    def topics(
        self, use_case: str, relevance: Callable[[str], float], vault_text: str
    ) -> list[Topic]:
        """Topics the use case implies that the vault does not answer, with likely inventions."""
        reply = self._ask(
            "The USE_CASE describes a chatbot. List up to 8 questions its users will ask, each "
            "with specifics (names, numbers, durations) a language model would be tempted to "
            'invent. Reply as {"topics": [{"question": "...", "fabrications": ["..."]}]}.',
            [("USE_CASE", use_case)],
        )
        found = []
        for item in (
            (reply or {}).get("topics", []) if isinstance((reply or {}).get("topics"), list) else []
        ):
            question = item.get("question") if isinstance(item, dict) else None
            fabrications = item.get("fabrications") if isinstance(item, dict) else None
            if not isinstance(question, str) or not isinstance(fabrications, list):
                self.rejected += 1
                continue
            kept = tuple(
                f
                for f in fabrications
                if isinstance(f, str)
                and f.strip()
                and "|" not in f
                and not find_phrase(vault_text, f)
            )
            if kept and relevance(question) < COVERED:
                found.append(Topic("gap", " ".join(question.split()), kept))
        return found


def _is_fact(value: Any, text: str) -> bool:
    return (
        isinstance(value, str)
        and 0 < len(value.strip()) <= MAX_FACT_CHARS
        and "|" not in value
        and bool(find_phrase(text.replace("**", ""), value))
    )
