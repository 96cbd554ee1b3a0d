"""SummEdits balanced accuracy per domain (issue 31): how the verifier reads edits that change a
summary's meaning in each of the eight domains, through the product path of the pair sets.

    python -m benchmarks.summedits_domains [--limit 150] [--seed 0] [--json OUT]

Each pair is one claim (an edited or faithful summary sentence) against its document, verified
by the shipped local chain with ``answer_level`` off, as ``benchmarks.verifier_eval`` reads
pairs; at most ``--limit`` pairs per domain (a seeded sample, grouped by document). Only
``qmsumm`` and ``sales_email`` are held out of the cross-encoder's training data
(``verifier_data.HELD_OUT_SUMMEDITS``); the other six were in it (their training rows are other
summaries of the same corpora), so their figures are optimistic and marked so.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from audit_pipeline.embedding import MemoEmbedder, SentenceTransformerEmbedder
from audit_pipeline.verification.configured import local_chain
from benchmarks.verifier_data import DATASETS, HELD_OUT_SUMMEDITS, summedits
from benchmarks.verifier_eval import sample_grouped, score_pairs


def domains(root: Path = DATASETS) -> list[str]:
    folder = root / "summedits" / "data" / "summedits"
    return sorted(p.stem.removeprefix("summedits_") for p in folder.glob("summedits_*.json"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=150, help="pairs per domain (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    embedder = SentenceTransformerEmbedder()
    memo = MemoEmbedder(embedder)
    verifier = local_chain(memo, answer_level=False)
    results = {}
    print(f"{'domain':<13} {'pairs':>5} {'BA':>6} {'F1':>6} {'trivial F1':>10}  cross-encoder")
    for domain in domains():
        pairs = sample_grouped(list(summedits(domains=(domain,))), args.limit, args.seed)
        scored = score_pairs(pairs, verifier, memo)
        held_out = domain in HELD_OUT_SUMMEDITS
        results[domain] = {**scored["verifier"], "pairs": scored["pairs"], "held_out": held_out}
        m = scored["verifier"]
        print(
            f"{domain:<13} {scored['pairs']:>5} {m['balanced_accuracy']:>6.3f} {m['f1']:>6.3f} "
            f"{m['trivial_f1']:>10.3f}  {'held out' if held_out else 'trained on (optimistic)'}"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
