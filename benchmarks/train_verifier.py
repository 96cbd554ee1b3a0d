"""Fit the local verifier and write ``audit_pipeline/verification/local_model.json``.

    python -m benchmarks.train_verifier [--stage all|entailment|combination] [--seed 0]
                                        [--scale 1.0] [--data PATH] [--cv 5]

Two stages, in order:
1. ``entailment``: the cross-encoder (``benchmarks.train_entailment``) on the training data
   sets of ``../shared/datasets`` plus synthetic minimal edits; RAGTruth is never read here.
2. ``combination``: the logistic claim and response models over the alignment features and
   the cross-encoder's two outputs, with every threshold, fitted on RAGTruth dev (data the
   cross-encoder never saw). The measured figures written into the model's manifest come from
   grouped K-fold cross-validation of this stage on the same split (by ``source_id``), never
   from rows the shipped combination was fitted on.

Deterministic for a given data file and seed on the same hardware (scikit-learn; fixed torch
seed for the cross-encoder).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.verification.scorer import DEFAULT_MODEL_PATH
from audit_pipeline.verification.training import fit_local_model
from benchmarks import train_entailment
from benchmarks.ragtruth import (
    DEFAULT_DATA,
    TOP_K,
    cross_validate,
    load_records,
    prepare,
    training_set,
)

MODEL_VERSION = "local-5"


def fit_combination(data: Path, seed: int, cv: int, out: Path) -> None:
    records = load_records(data)
    embedder = SentenceTransformerEmbedder()
    prepared = prepare(records, embedder, TOP_K)
    measured = cross_validate(prepared, embedder, cv, seed)
    model = fit_local_model(training_set(prepared), seed=seed, version=MODEL_VERSION)
    response = measured["response_level"]
    model.training.update(
        data=data.name,
        data_sha256=hashlib.sha256(data.read_bytes()).hexdigest()[:16],
        top_k=TOP_K,
        command=f"python -m benchmarks.train_verifier --stage combination --seed {seed}",
        measured={
            "dataset": f"RAGTruth {data.stem}, {cv}-fold CV grouped by source (seed {seed})",
            "f1": round(response["f1"], 3),
            "balanced_accuracy": round(response["balanced_accuracy"], 3),
            "trivial_f1": round(response["trivial_f1"], 3),
            "by_task_balanced_accuracy": {
                task: round(m["balanced_accuracy"], 3) for task, m in measured["by_task"].items()
            },
            "span_f1": round(measured["span_level"]["f1"], 3),
            "date": datetime.date.today().isoformat(),
        },
    )
    model.save(out)
    print(f"wrote {out}: {model.training}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stage", choices=("all", "entailment", "combination"), default="all")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cv", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0, help="entailment data scale")
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL_PATH)
    args = parser.parse_args(argv)
    if args.stage in ("all", "entailment"):
        train_entailment.main(["--seed", str(args.seed), "--scale", str(args.scale)])
    if args.stage in ("all", "combination"):
        fit_combination(args.data, args.seed, args.cv, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
