"""The micro-batcher that turns concurrent single requests into batched generate calls."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

from audit_pipeline.generation.batcher import Conversation, MicroBatcher
from audit_pipeline.generation.local_model import Generation


class EchoModel:
    """Answers with the last message; records every generate call it received."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.calls: list[tuple[int, int, tuple[str, ...]]] = []
        self.fail_on = fail_on
        self.lock = threading.Lock()

    def __call__(
        self, conversations: list[Conversation], max_new_tokens: int, stop: Sequence[str]
    ) -> list[Generation]:
        with self.lock:
            self.calls.append((len(conversations), max_new_tokens, tuple(stop)))
        texts = [c[-1]["content"] for c in conversations]
        if self.fail_on in texts:
            raise RuntimeError("model failed")
        return [Generation(t.upper(), len(t), 1, "stop") for t in texts]


def _ask(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_concurrent_requests_share_one_generate_call() -> None:
    model = EchoModel()
    batcher = MicroBatcher(model, max_batch=8, linger_s=0.2)
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda t: batcher.generate(_ask(t), 16), "abcdef"))
    assert [r.text for r in results] == list("ABCDEF")  # each caller gets its own answer
    assert model.calls == [(6, 16, ())]
    assert batcher.batch_sizes == {6: 1}


def test_batches_respect_max_batch_and_settings() -> None:
    model = EchoModel()
    batcher = MicroBatcher(model, max_batch=3, linger_s=0.2)
    futures = [batcher.submit(_ask(t), 16) for t in "abcd"]
    futures.append(batcher.submit(_ask("e"), 16, stop=["\n"]))
    assert [f.result(timeout=10).text for f in futures] == list("ABCDE")
    assert sum(size for size, _, _ in model.calls) == 5
    assert all(size <= 3 for size, _, _ in model.calls)
    # A request with other settings never shares a call with the rest.
    assert (1, 16, ("\n",)) in model.calls


def test_a_failed_batch_fails_its_requests_and_the_worker_carries_on() -> None:
    model = EchoModel(fail_on="boom")
    batcher = MicroBatcher(model, max_batch=8, linger_s=0.2)
    doomed = [batcher.submit(_ask(t), 8) for t in ("x", "boom")]
    for future in doomed:
        with pytest.raises(RuntimeError, match="model failed"):
            future.result(timeout=10)
    assert batcher.generate(_ask("ok"), 8).text == "OK"


def test_max_batch_must_be_positive() -> None:
    with pytest.raises(ValueError):
        MicroBatcher(EchoModel(), max_batch=0)
