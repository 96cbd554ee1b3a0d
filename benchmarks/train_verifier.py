"""Fit the local verifier's model and write ``audit_pipeline/verification/local_model.json``.

    python -m benchmarks.train_verifier [--data PATH] [--seed 0] [--out PATH]

Deterministic for a given data file and seed (scikit-learn logistic regressions, grouped
folds shuffled with the seed). The default reproduces the shipped artifact from the RAGTruth
dev split.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.verification.scorer import DEFAULT_MODEL_PATH
from audit_pipeline.verification.training import fit_local_model
from benchmarks.ragtruth import DEFAULT_DATA, TOP_K, load_records, prepare, training_set

MODEL_VERSION = "local-2"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--top-k", type=int, default=TOP_K)
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL_PATH)
    args = parser.parse_args(argv)

    records = load_records(args.data)
    embedder = SentenceTransformerEmbedder()
    prepared = prepare(records, embedder, args.top_k)
    model = fit_local_model(training_set(prepared), seed=args.seed, version=MODEL_VERSION)
    digest = hashlib.sha256(args.data.read_bytes()).hexdigest()[:16]
    model.training.update(
        data=args.data.name,
        data_sha256=digest,
        top_k=args.top_k,
        command=f"python -m benchmarks.train_verifier --data {args.data.name} --seed {args.seed}",
    )
    model.save(args.out)
    print(f"wrote {args.out}: {model.training}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
