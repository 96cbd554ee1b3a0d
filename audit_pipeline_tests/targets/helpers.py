"""Small builders shared by the target tests."""

from __future__ import annotations

import json
from typing import Any

from audit_pipeline.suites import PromptSuite, parse_suite


def suite_of(*entries: dict[str, Any]) -> PromptSuite:
    """A suite from entries in the file format, validated like a file would be."""
    return parse_suite(json.dumps(entries), source="<test>", fmt="json", default_name="test")


def single(prompt_id: str, prompt: str, category: str = "test") -> dict[str, Any]:
    return {"id": prompt_id, "category": category, "prompt": prompt}


def conversation(prompt_id: str, *prompts: str) -> dict[str, Any]:
    return {
        "id": prompt_id,
        "category": "multi_turn",
        "conversation": [{"prompt": prompt} for prompt in prompts],
    }
