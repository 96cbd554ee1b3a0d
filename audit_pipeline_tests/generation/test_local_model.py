"""SmolLM2 run with transformers: greedy batched generation and the dequantised-weights cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit_pipeline.generation import weights_cache
from audit_pipeline.generation.local_model import LocalChatModel, load_local_model
from audit_pipeline.generation.model_files import gguf_path

pytestmark = pytest.mark.model

CAPITAL = [{"role": "user", "content": "What is the capital of France?"}]
COLOURS = [
    {"role": "system", "content": "Answer in one short sentence."},
    {"role": "user", "content": "Name three primary colours."},
]


def test_batched_answers_equal_single_answers(local_model: LocalChatModel) -> None:
    batched = local_model.generate_batch([CAPITAL, COLOURS], max_new_tokens=24)
    single = [local_model.generate_batch([c], max_new_tokens=24)[0] for c in (CAPITAL, COLOURS)]
    assert batched == single  # left padding changes nothing: answers do not depend on batching
    assert "Paris" in batched[0].text
    assert batched[0].finish_reason == "stop"
    assert batched[0].prompt_tokens == local_model.count_tokens(CAPITAL)
    assert 0 < batched[0].completion_tokens < 24


def test_token_limit_and_stop_strings(local_model: LocalChatModel) -> None:
    capped = local_model.generate_batch([COLOURS], max_new_tokens=3)[0]
    assert capped.finish_reason == "length" and capped.completion_tokens == 3

    free = local_model.generate_batch([CAPITAL], max_new_tokens=24)[0]
    word = free.text.split()[2]  # "The capital of France is Paris." -> stop at "of"
    stopped = local_model.generate_batch([CAPITAL], max_new_tokens=24, stop=[word])[0]
    assert stopped.finish_reason == "stop"
    assert word not in stopped.text and free.text.startswith(stopped.text)


def _entry(cache_dir: Path) -> Path:
    digest = weights_cache.file_sha256(gguf_path())
    return weights_cache.entry_dir(cache_dir, "smollm2-135m-instruct", digest)


def test_cached_weights_load_fast_and_answer_the_same(
    local_model: LocalChatModel, tmp_path: Path
) -> None:
    source = gguf_path()
    entry = _entry(tmp_path)
    assert weights_cache.save_entry(entry, local_model.model, local_model.tokenizer, source)
    assert weights_cache.is_complete(entry)

    cached = load_local_model("smollm2-135m-instruct", tmp_path)
    assert cached.load_report.source == "cache"
    assert cached.load_report.seconds < 10  # dequantising the GGUF takes ~20 s
    assert cached.generate_batch([CAPITAL], 24) == local_model.generate_batch([CAPITAL], 24)


def test_a_damaged_cache_entry_is_replaced(local_model: LocalChatModel, tmp_path: Path) -> None:
    source = gguf_path()
    entry = _entry(tmp_path)
    entry.mkdir(parents=True)
    (entry / "model.safetensors").write_bytes(b"half a file")  # no completion marker
    assert not weights_cache.is_complete(entry)
    assert weights_cache.save_entry(entry, local_model.model, local_model.tokenizer, source)
    assert weights_cache.is_complete(entry)
    assert (entry / "model.safetensors").stat().st_size > 100_000_000
