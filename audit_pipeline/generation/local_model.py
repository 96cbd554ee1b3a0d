"""A small local chat model (SmolLM2-135M-Instruct) run with transformers on the CPU.

The model is the system under audit in the demo, not a judge: it answers simple questions from
a given context and hallucinates on harder ones, which is exactly what the audit must catch.
Decoding is greedy so an audit is reproducible: the same prompt gives the same answer, run
after run, which lets the response cache and week-over-week comparisons mean something.

Loading costs ~20 s the first time (GGUF dequantisation), so one model is loaded per process
and shared; ``weights_cache`` makes every later process load in under a second.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from audit_pipeline.generation import weights_cache
from audit_pipeline.generation.model_files import GgufModel, gguf_path, known_model

logger = logging.getLogger(__name__)

Message = Mapping[str, str]
FinishReason = Literal["stop", "length"]


@dataclass(frozen=True)
class Generation:
    """One completion with the token counts litellm reports as usage."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: FinishReason


@dataclass(frozen=True)
class LoadReport:
    """How the weights were obtained; the benchmarks print it."""

    source: Literal["gguf", "cache"]
    seconds: float
    cached_to: Path | None


class LocalChatModel:
    """A loaded causal LM and its tokenizer. ``generate_batch`` is safe to call from several
    threads: calls run one at a time, because on a few CPU cores two concurrent generations are
    slower than one batched call and would each hold a KV cache."""

    def __init__(self, name: str, model: Any, tokenizer: Any, load: LoadReport) -> None:
        self.name = name
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.tokenizer.padding_side = "left"  # decoder-only: prompts must end where output starts
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.load_report = load
        self._lock = threading.Lock()

    def count_tokens(self, conversation: Sequence[Message]) -> int:
        """Prompt length in tokens after the chat template (used to keep prompts short)."""
        return len(self._encode_one(conversation))

    def generate_batch(
        self,
        conversations: Sequence[Sequence[Message]],
        max_new_tokens: int,
        stop: Sequence[str] = (),
    ) -> list[Generation]:
        """Greedy completions for several conversations in one left-padded ``generate`` call.

        A row stops at end-of-sequence, at ``max_new_tokens``, or after any of the ``stop``
        strings (which is cut from the text, as in the OpenAI API). A row that stops early is
        still computed, as padding, until the longest row ends, and every prompt is padded to
        the longest one: batching pays off only when answers are short and similar in length,
        which is why callers keep ``max_new_tokens`` small.
        """
        if max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be at least 1, got {max_new_tokens}")
        if not conversations:
            return []
        import torch

        prompts = [self._encode_one(conversation) for conversation in conversations]
        batch = self.tokenizer.pad({"input_ids": prompts}, padding=True, return_tensors="pt")
        eos = self.tokenizer.eos_token_id
        stops = [text for text in stop if text]
        extra: dict[str, Any] = {}
        if stops:  # transformers matches stop strings on tokens, so it needs the tokenizer
            extra = {"stop_strings": stops, "tokenizer": self.tokenizer}
        with self._lock, torch.inference_mode():
            output = self.model.generate(
                input_ids=batch["input_ids"],
                attention_mask=batch["attention_mask"],
                max_new_tokens=max_new_tokens,
                do_sample=False,
                temperature=None,
                top_p=None,
                top_k=None,
                eos_token_id=eos,
                pad_token_id=self.tokenizer.pad_token_id,
                **extra,
            )
        new_tokens = output[:, batch["input_ids"].shape[1] :].tolist()
        return [
            self._generation(tokens, len(prompt), eos, stops)
            for tokens, prompt in zip(new_tokens, prompts, strict=True)
        ]

    def _encode_one(self, conversation: Sequence[Message]) -> list[int]:
        messages = [{"role": m["role"], "content": m["content"]} for m in conversation]
        text = self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, tokenize=False
        )
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _generation(
        self, tokens: list[int], prompt_tokens: int, eos: int, stops: Sequence[str]
    ) -> Generation:
        # A row ends at its end-of-sequence token; a row that finished before the others (or at
        # a stop string) is padded to the batch's length. Neither is counted as output.
        ends = {eos, self.tokenizer.pad_token_id} - {None}
        end = next((i for i, token in enumerate(tokens) if token in ends), None)
        finish: FinishReason = "length" if end is None else "stop"
        tokens = tokens if end is None else tokens[:end]
        text = self.tokenizer.decode(tokens, skip_special_tokens=True)
        cut = min((i for i in (text.find(s) for s in stops) if i >= 0), default=-1)
        if cut >= 0:
            text, finish = text[:cut], "stop"
        return Generation(text.strip(), prompt_tokens, len(tokens), finish)


def load_local_model(name: str, cache_dir: Path | None = None) -> LocalChatModel:
    """Load a known model, from the dequantised-weights cache when possible.

    ``cache_dir`` None means no cache (always dequantise the GGUF); see
    ``weights_cache.default_cache_dir`` for the project default.
    """
    spec = known_model(name)
    source = gguf_path(spec)
    started = time.perf_counter()
    entry = None
    if cache_dir is not None:
        entry = weights_cache.entry_dir(cache_dir, spec.name, weights_cache.file_sha256(source))
        if weights_cache.is_complete(entry):
            try:
                model, tokenizer = _from_directory(entry)
            except Exception as exc:  # damaged entry: fall back to the GGUF and rewrite it
                logger.warning("ignoring cached weights in %s: %s", entry, exc)
            else:
                report = LoadReport("cache", time.perf_counter() - started, None)
                return LocalChatModel(spec.name, model, tokenizer, report)
    model, tokenizer = _from_gguf(spec, source)
    saved = entry is not None and weights_cache.save_entry(entry, model, tokenizer, source)
    report = LoadReport("gguf", time.perf_counter() - started, entry if saved else None)
    logger.info("loaded %s from %s in %.1f s", spec.name, source.name, report.seconds)
    return LocalChatModel(spec.name, model, tokenizer, report)


def _from_gguf(spec: GgufModel, source: Path) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
    model = AutoModelForCausalLM.from_pretrained(str(source.parent), gguf_file=source.name)
    return model, tokenizer


def _from_directory(directory: Path) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(directory), local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(str(directory), local_files_only=True)
    return model, tokenizer


_loaded: dict[str, LocalChatModel] = {}
_loading = threading.Lock()


def shared_local_model(name: str, cache_dir: Path | None = None) -> LocalChatModel:
    """The process-wide instance of a model, loaded on first use.

    A per-process cache, not shared state: each worker process loads its own copy (from the
    weights cache, quickly), and answers do not depend on which process produced them. Keyed
    by model only: ``cache_dir`` changes how fast a model loads, never what it answers.
    """
    key = known_model(name).name
    model = _loaded.get(key)
    if model is not None:
        return model
    with _loading:  # one load at a time: a second thread waits instead of loading again
        model = _loaded.get(key)
        if model is None:
            model = load_local_model(name, cache_dir)
            _loaded[key] = model
        return model
