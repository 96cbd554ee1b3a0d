"""The one "call, parse, repair once" helper the claim extractor and the judge share."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from audit_pipeline.llm.litellm_io import LLMOutputError, ask_json, parse_json_object

MESSAGES = [{"role": "user", "content": "Reply with JSON."}]


def _scripted(
    *replies: str,
) -> tuple[list[list[dict[str, str]]], Callable[[list[dict[str, str]]], str]]:
    calls: list[list[dict[str, str]]] = []
    remaining = list(replies)

    def ask(messages: list[dict[str, str]]) -> str:
        calls.append(messages)
        return remaining.pop(0)

    return calls, ask


def test_a_valid_reply_is_parsed_with_one_call() -> None:
    calls, ask = _scripted('{"a": 1}')

    assert ask_json(ask, MESSAGES, parse_json_object, '{"a": int}') == ({"a": 1}, False)
    assert calls == [MESSAGES]


def test_an_invalid_reply_is_repaired_once_with_the_problem_named() -> None:
    calls, ask = _scripted("no json here", '{"a": 2}')

    assert ask_json(ask, MESSAGES, parse_json_object, '{"a": int}') == ({"a": 2}, True)
    assert len(calls) == 2
    assert calls[1][: len(MESSAGES)] == MESSAGES
    assert calls[1][-2] == {"role": "assistant", "content": "no json here"}
    assert "no JSON object in the reply" in calls[1][-1]["content"]
    assert '{"a": int}' in calls[1][-1]["content"]


def test_a_second_invalid_reply_raises() -> None:
    calls, ask = _scripted("nope", "still nope", '{"never": "asked"}')

    with pytest.raises(LLMOutputError):
        ask_json(ask, MESSAGES, parse_json_object, "{}")
    assert len(calls) == 2
