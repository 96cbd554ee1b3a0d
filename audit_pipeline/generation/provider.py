"""The local model as a litellm provider: ``model="local/smollm2-135m-instruct"``.

Serving the built-in bot's model through litellm keeps one code path for every model the
project calls, local or remote: the same usage accounting, callbacks and error types. Calls
are coalesced into batched generation by ``MicroBatcher``, so ``litellm.batch_completion`` (or
any set of concurrent ``completion`` calls) runs as a few batched ``generate`` calls instead of
one per conversation.

Decoding is always greedy: ``temperature`` and ``top_p`` are accepted and ignored, because the
audit needs reproducible answers from the system under audit.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-list fetch at import

import litellm  # after the default above, which it reads at import time
from litellm.llms.custom_llm import CustomLLM, CustomLLMError
from litellm.types.utils import ModelResponse, Usage

from audit_pipeline.generation.batcher import BatchFn, Conversation, MicroBatcher
from audit_pipeline.generation.local_model import Generation, shared_local_model
from audit_pipeline.generation.model_files import ModelFilesMissingError, known_model
from audit_pipeline.generation.weights_cache import default_cache_dir

LOCAL_PROVIDER = "local"
DEFAULT_MAX_TOKENS = 256


class LocalChatProvider(CustomLLM):
    """litellm custom provider serving the models in ``model_files.KNOWN_MODELS``.

    One micro-batcher (and so one worker thread) per model and process; the model loads on the
    first call that needs it.
    """

    def __init__(self, cache_dir: Path | None = None, max_batch: int = 8) -> None:
        super().__init__()
        self.cache_dir = cache_dir
        self.max_batch = max_batch
        self._batchers: dict[str, MicroBatcher] = {}
        self._lock = threading.Lock()

    def batcher(self, model: str) -> MicroBatcher:
        name = known_model(model).name
        with self._lock:
            batcher = self._batchers.get(name)
            if batcher is None:
                batcher = MicroBatcher(self._batch_fn(name), max_batch=self.max_batch)
                self._batchers[name] = batcher
            return batcher

    def _batch_fn(self, name: str) -> BatchFn:
        def run(
            conversations: list[Conversation], max_new_tokens: int, stop: tuple[str, ...]
        ) -> list[Generation]:
            model = shared_local_model(name, self.cache_dir)
            return model.generate_batch(conversations, max_new_tokens, stop)

        return run

    def completion(  # type: ignore[override]  # keyword-compatible with CustomLLM.completion
        self,
        model: str,
        messages: list[dict[str, Any]],
        model_response: ModelResponse,
        optional_params: dict[str, Any],
        timeout: float | Any | None = None,
        **_: Any,
    ) -> ModelResponse:
        limit = _max_tokens(optional_params)
        conversation = [_message(m) for m in messages]
        try:
            batcher = self.batcher(model)
        except ValueError as exc:
            raise CustomLLMError(status_code=404, message=str(exc)) from None
        future = batcher.submit(conversation, limit, _stops(optional_params.get("stop")))
        try:
            generation = future.result(
                timeout=timeout if isinstance(timeout, int | float) else None
            )
        except ModelFilesMissingError as exc:
            raise CustomLLMError(status_code=500, message=str(exc)) from None
        except TimeoutError:
            future.cancel()
            raise litellm.Timeout(
                message=f"local generation took longer than {timeout} s",
                model=model,
                llm_provider=LOCAL_PROVIDER,
            ) from None
        model_response.id = f"chatcmpl-local-{uuid.uuid4().hex}"
        model_response.created = int(time.time())
        model_response.model = f"{LOCAL_PROVIDER}/{known_model(model).name}"
        model_response.choices[0].message.content = generation.text
        model_response.choices[0].finish_reason = generation.finish_reason
        # litellm sets ``usage`` dynamically; ModelResponse does not declare it.
        model_response.usage = Usage(  # type: ignore[attr-defined]
            prompt_tokens=generation.prompt_tokens,
            completion_tokens=generation.completion_tokens,
            total_tokens=generation.prompt_tokens + generation.completion_tokens,
        )
        return model_response

    async def acompletion(self, *args: Any, **kwargs: Any) -> ModelResponse:
        # Generation blocks on torch; a thread keeps the event loop free, and concurrent
        # acompletion calls meet in the batcher like threaded ones.
        return await asyncio.to_thread(self.completion, *args, **kwargs)


_provider: LocalChatProvider | None = None
_register_lock = threading.Lock()


def register_local_provider(cache_dir: Path | None = None, max_batch: int = 8) -> LocalChatProvider:
    """Make ``local/<model>`` callable through litellm in this process (idempotent).

    The first call's settings win. Both only affect speed (where dequantised weights are
    cached, how many conversations may share a ``generate`` call), never answers: batched and
    single generation give the same text (fp32, left padding; see the tests).
    """
    global _provider
    with _register_lock:
        if _provider is None:
            _provider = LocalChatProvider(
                cache_dir if cache_dir is not None else default_cache_dir(), max_batch
            )
        entries = [e for e in litellm.custom_provider_map if e.get("provider") == LOCAL_PROVIDER]
        if not any(e.get("custom_handler") is _provider for e in entries):
            litellm.custom_provider_map = [
                e for e in litellm.custom_provider_map if e.get("provider") != LOCAL_PROVIDER
            ] + [{"provider": LOCAL_PROVIDER, "custom_handler": _provider}]
        return _provider


def _max_tokens(params: dict[str, Any]) -> int:
    for key in ("max_tokens", "max_completion_tokens"):
        value = params.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return DEFAULT_MAX_TOKENS


def _message(message: dict[str, Any]) -> dict[str, str]:
    content = message.get("content")
    if isinstance(content, list):  # OpenAI content parts: keep the text ones
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return {"role": str(message.get("role", "user")), "content": str(content or "")}


def _stops(stop: Any) -> tuple[str, ...]:
    """OpenAI's ``stop``: one string or a list of them."""
    if isinstance(stop, str):
        return (stop,) if stop else ()
    return tuple(s for s in stop or () if isinstance(s, str) and s)
