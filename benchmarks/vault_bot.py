"""Speed of the built-in vault bot: model load, generation throughput, the sample suite.

    python -m benchmarks.vault_bot [--threads N] [--batch-sizes 1,4,8] [--skip-load] [--json OUT]

* load: a fresh process loads SmolLM2 from the GGUF (dequantising, no cache) and from the
  dequantised-weights cache; the figure is the load alone, after imports.
* throughput: the bot's real prompts for the suite's answerable questions, generated with
  ``generate_batch`` at each batch size, then once more through ``litellm.batch_completion``
  (the path the bot uses) at the largest size; tokens/s counts generated tokens.
* suite: ``run_suite`` over the sample suite with a fresh index in a temporary directory, as
  the audit runs it (each round of turns in batches: first turns, then follow-ups).

Each figure comes with the process's CPU seconds and the machine's load average: on a shared
CPU wall-clock numbers move a lot, CPU seconds much less.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SUITE = REPO / "data" / "prompt-suites" / "security-questionnaire.yaml"
VAULT = REPO / "data" / "sample-vault"
MODEL = "smollm2-135m-instruct"


def load_in_fresh_process(cache_dir: Path | None, threads: int) -> dict[str, Any]:
    """Seconds to import torch + transformers' Llama code, then to load the model."""
    code = (
        "import json, sys, time\n"
        "started = time.perf_counter()\n"
        "import torch\n"
        f"torch.set_num_threads({threads})\n"
        "from transformers import LlamaForCausalLM, PreTrainedTokenizerFast\n"
        "imported = time.perf_counter()\n"
        "from pathlib import Path\n"
        "from audit_pipeline.generation.local_model import load_local_model\n"
        "cache = None if sys.argv[1] == '-' else Path(sys.argv[1])\n"
        f"m = load_local_model({MODEL!r}, cache)\n"
        "print(json.dumps({'source': m.load_report.source, 'seconds': m.load_report.seconds,\n"
        "                  'imports': imported - started}))\n"
    )
    argument = "-" if cache_dir is None else str(cache_dir)
    done = subprocess.run(
        [sys.executable, "-c", code, argument],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env={**os.environ, "TRANSFORMERS_VERBOSITY": "error"},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure_load(threads: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        uncached = load_in_fresh_process(None, threads)
        load_in_fresh_process(cache, threads)  # writes the cache entry
        cached = load_in_fresh_process(cache, threads)
    return {
        "imports_s": round(cached["imports"], 1),
        "gguf_s": round(uncached["seconds"], 1),
        "cached_s": round(cached["seconds"], 1),
        "load": _load(),
    }


def build_retriever(root: Path) -> Any:
    from audit_pipeline.embedding import SentenceTransformerEmbedder
    from audit_pipeline.index.lance_index import VaultIndex
    from audit_pipeline.index.retrieval import HybridRetriever
    from audit_pipeline.vault.chunking import chunk_documents
    from audit_pipeline.vault.documents import scan_vault

    index = VaultIndex(root / "vault.lance", SentenceTransformerEmbedder())
    index.sync(chunk_documents(scan_vault(VAULT).documents))
    return HybridRetriever(index)


def bot_prompts(bot: Any) -> list[list[dict[str, str]]]:
    """The conversations the bot would send for the suite's first turns that it answers."""
    from audit_pipeline.suites.loader import load_suite
    from audit_pipeline.targets.base import TargetRequest

    suite = load_suite(SUITE)
    requests = [TargetRequest(p.id, 0, p.turns[0].prompt) for p in suite.prompts]
    conversations = []
    for request, retrieval in zip(requests, bot.retrieve_many(requests), strict=True):
        if (
            not isinstance(retrieval, Exception)
            and retrieval.confidence >= bot.config.min_confidence
        ):
            conversations.append(bot.build_messages(request, retrieval.hits))
    return conversations


def measure_throughput(bot: Any, sizes: list[int], max_new_tokens: int) -> list[dict[str, Any]]:
    import litellm

    from audit_pipeline.generation.local_model import shared_local_model
    from audit_pipeline.generation.weights_cache import default_cache_dir

    model = shared_local_model(MODEL, default_cache_dir())
    prompts = bot_prompts(bot)[: max(sizes)]
    model.generate_batch(prompts[:1], 4)  # warm-up
    rows = []
    for size in sizes:
        started, cpu, tokens = time.perf_counter(), time.process_time(), 0
        for start in range(0, len(prompts), size):
            results = model.generate_batch(prompts[start : start + size], max_new_tokens)
            tokens += sum(r.completion_tokens for r in results)
        seconds = time.perf_counter() - started
        rows.append(_row(f"generate_batch, batch {size}", len(prompts), tokens, seconds, cpu))
    size = max(sizes)
    started, cpu, tokens = time.perf_counter(), time.process_time(), 0
    for start in range(0, len(prompts), size):
        responses = litellm.batch_completion(
            model=bot.model, messages=prompts[start : start + size], max_tokens=max_new_tokens
        )
        tokens += sum(r.usage.completion_tokens for r in responses)
    seconds = time.perf_counter() - started
    label = f"litellm.batch_completion, batch {size}"
    rows.append(_row(label, len(prompts), tokens, seconds, cpu))
    return rows


def measure_suite(bot: Any) -> dict[str, Any]:
    from audit_pipeline.suites.loader import load_suite
    from audit_pipeline.targets.suite_runner import run_suite

    suite = load_suite(SUITE)
    started, cpu = time.perf_counter(), time.process_time()
    records = run_suite(suite, bot, audit_id="benchmark", concurrency=1)  # as audit.yaml
    seconds = time.perf_counter() - started
    generated = [r for r in records if r.completion_tokens]
    return {
        "turns": len(records),
        "generated": len(generated),
        "abstained": sum(r.response == bot.config.fallback_sentence for r in records),
        "errors": sum(r.error is not None for r in records),
        "completion_tokens": sum(r.completion_tokens or 0 for r in generated),
        "seconds": round(seconds, 1),
        "cpu_s": round(time.process_time() - cpu, 1),
        "load": _load(),
    }


def _row(label: str, prompts: int, tokens: int, seconds: float, cpu: float) -> dict[str, Any]:
    return {
        "path": label,
        "prompts": prompts,
        "tokens": tokens,
        "seconds": round(seconds, 1),
        "tokens_per_s": round(tokens / seconds, 1),
        "s_per_prompt": round(seconds / prompts, 2),
        "cpu_s": round(time.process_time() - cpu, 1),  # all threads: robust to a busy machine
        "load": _load(),
    }


def _load() -> float:
    return round(os.getloadavg()[0], 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None, help="torch threads")
    parser.add_argument("--batch-sizes", default="1,4,8")
    parser.add_argument("--max-new-tokens", type=int, default=None)
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--min-confidence", type=float, default=None)
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-suite", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    threads = torch.get_num_threads()
    from audit_pipeline.targets.target_config import VaultBotTargetConfig
    from audit_pipeline.targets.vault_bot import VaultBotTarget
    from audit_pipeline.validation.guardrail_validator import guardrail_validator

    report: dict[str, Any] = {"torch_threads": threads, "cpus": os.cpu_count()}
    if not args.skip_load:
        report["model_load"] = measure_load(threads)
        print("model load:", report["model_load"], flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        overrides = {"max_new_tokens": args.max_new_tokens, "min_confidence": args.min_confidence}
        config = VaultBotTargetConfig(**{k: v for k, v in overrides.items() if v is not None})
        retriever = build_retriever(Path(tmp))
        validator = guardrail_validator(config, retriever.index.embedder)
        bot = VaultBotTarget("vault_bot", config, retriever, validator=validator)
        if not args.skip_throughput:
            sizes = [int(size) for size in args.batch_sizes.split(",")]
            report["throughput"] = measure_throughput(bot, sizes, config.max_new_tokens)
            for row in report["throughput"]:
                print("throughput:", row, flush=True)
        if not args.skip_suite:
            report["suite"] = measure_suite(bot)
            print("suite:", report["suite"], flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
