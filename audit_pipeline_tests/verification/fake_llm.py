"""A scripted litellm provider, so LLM code paths run through real litellm offline.

It is registered in ``litellm.custom_provider_map``; each call records the messages it was
sent and answers with the next scripted reply (a string, or an exception to raise). The reply
says it came from ``model`` (which decides litellm's price: an unlisted one has none) and,
with ``usage``, reports those (prompt, completion) tokens instead of litellm's mock figures.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm
from litellm import CustomLLM

Reply = str | BaseException | Callable[[list[dict[str, Any]]], str]


class ScriptedLLM(CustomLLM):
    def __init__(
        self,
        replies: list[Reply],
        repeat_last: bool = True,
        *,
        model: str = "gpt-3.5-turbo",
        usage: tuple[int, int] | None = None,
    ) -> None:
        super().__init__()
        self.replies = list(replies)
        self.repeat_last = repeat_last
        self.model = model
        self.usage = usage
        self.calls: list[list[dict[str, Any]]] = []

    def completion(self, *args: Any, **kwargs: Any) -> litellm.ModelResponse:
        messages = kwargs.get("messages") or (args[1] if len(args) > 1 else [])
        self.calls.append([dict(m) for m in messages])
        index = len(self.calls) - 1
        if index >= len(self.replies):
            if not self.repeat_last:
                raise RuntimeError("no scripted reply left")
            index = len(self.replies) - 1
        reply = self.replies[index]
        if isinstance(reply, BaseException):
            raise reply
        text = reply(messages) if callable(reply) else reply
        response = litellm.completion(
            model=self.model,
            messages=[{"role": "user", "content": "scripted"}],
            mock_response=text,
        )
        if self.usage is not None:
            prompt, completion = self.usage
            response.usage = litellm.Usage(  # type: ignore[attr-defined]
                prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
            )
        return response


@contextmanager
def scripted_provider(llm: ScriptedLLM, provider: str = "scripted") -> Iterator[str]:
    """Register ``llm`` for the duration of the block; yields a model id that routes to it."""
    previous = list(litellm.custom_provider_map)
    litellm.custom_provider_map = [
        *[p for p in previous if p.get("provider") != provider],
        {"provider": provider, "custom_handler": llm},
    ]
    try:
        yield f"{provider}/test-model"
    finally:
        litellm.custom_provider_map = previous
