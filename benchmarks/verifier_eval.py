"""How good is the local verifier, per evaluation set, beside the trivial baseline.

    python -m benchmarks.verifier_eval [--sets ragtruth,wice,qags,summedits,probes,probes_seed11]
                                       [--limit N] [--cv 5] [--json OUT]

Sets (none of them trained on by ``benchmarks.train_entailment``):
- ``ragtruth``: RAGTruth dev through ``benchmarks.ragtruth`` (response level, grouped CV of the
  combination, since the shipped combination is fitted on that split), overall and per task;
- ``wice``: WiCE test claims (supported vs partially / not supported);
- ``qags``: QAGS summary sentences (CNN/DM and XSum; majority of three votes);
- ``summedits``: the SummEdits domains held out of training;
- ``probes``: minimal edits of the sample vault (``benchmarks/data/minimal_edit_probes.jsonl``),
  accuracy per edit type; ``probes_seed11``: a second draw of the same generator, never looked
  at while the verifier's rules were written.

Pair sets go through the product path: evidence cut into passages, ranked per claim like
logged context, then the local chain reading each claim alone (its learned model's
``answer_level`` off: a pair is one claim, not an answer); a claim counts as flagged when its
verdict is unsupported or contradicted. Positive class = not entailed (a hallucination). The
entailment model alone (P(entailed) < 0.5) and its ROC AUC are printed beside it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from audit_pipeline.claims.claim import make_claim
from audit_pipeline.embedding import MemoEmbedder, SentenceTransformerEmbedder
from audit_pipeline.evidence import ContextEvidence
from audit_pipeline.evidence.passages import text_passages
from audit_pipeline.verification import HALLUCINATION_LABELS, Answer, Verdict, VerifierChain
from audit_pipeline.verification.configured import local_chain
from audit_pipeline.verification.entailment import EntailmentModel
from audit_pipeline.verification.features import alignment_analysis
from benchmarks import ragtruth
from benchmarks.verifier_data import HELD_OUT_SUMMEDITS, Pair, qags, summedits, wice

PROBES = Path(__file__).with_name("data") / "minimal_edit_probes.jsonl"
# The same generator over the same vault with another seed, made after the close-rewrite
# rules were written against ``PROBES``: the unbiased check of those rules.
FRESH_PROBES = Path(__file__).with_name("data") / "minimal_edit_probes_seed11.jsonl"
TOP_K = 8


def load_probes(path: Path = PROBES) -> list[Pair]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [
        Pair(
            r["evidence"],
            r["claim"],
            r["entailed"],
            r["contradicted"],
            "probes",
            r["document"],
            r["kind"],
        )
        for r in rows
    ]


def binary_metrics(flagged: Sequence[bool], gold_bad: Sequence[bool]) -> dict[str, float]:
    """P / R / F1 (positive = not entailed), balanced accuracy, and the all-flagged F1."""
    metrics = ragtruth.response_metrics(flagged, gold_bad)
    positives = sum(gold_bad)
    metrics["trivial_f1"] = 2 * positives / (positives + len(gold_bad)) if gold_bad else 0.0
    return metrics


def _auc(scores: np.ndarray, gold: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(gold, scores)) if len(set(gold.tolist())) == 2 else float("nan")


def score_pairs(
    pairs: Sequence[Pair],
    verifier: VerifierChain,
    memo: MemoEmbedder,
    verdicts: list[Verdict] | None = None,
) -> dict[str, Any]:
    """Verdicts for each pair through the product path, and the model's own reading; each
    verdict is appended to ``verdicts`` when given."""
    started = time.perf_counter()
    by_document: dict[str, ContextEvidence] = {}
    flagged, labels, nli = [], [], []
    for pair in pairs:
        evidence = by_document.get(pair.evidence)
        if evidence is None:
            evidence = ContextEvidence(text_passages(pair.evidence, pair.group), memo, TOP_K)
            by_document = {pair.evidence: evidence}  # pairs arrive grouped by document
        claim = make_claim(pair.claim, 0, len(pair.claim), "sentence")
        passages = evidence.for_claims([claim.text])
        batch = verifier.batch([Answer.of([claim], passages)])
        verdict = verifier.verify_batch(batch)[0].verdicts[0]
        if verdicts is not None:
            verdicts.append(verdict)
        flagged.append(verdict.label in HALLUCINATION_LABELS)
        labels.append(verdict.label.value)
        nli.append(batch.analysis(alignment_analysis)[0].features["nli_unsupported"])
    seconds = time.perf_counter() - started
    gold_bad = [not p.entailed for p in pairs]
    nli_scores = np.array(nli)
    out = {
        "pairs": len(pairs),
        "verifier": binary_metrics(flagged, gold_bad),
        "model_alone": binary_metrics(list(nli_scores > 0.5), gold_bad),
        "model_auc": _auc(nli_scores, np.array(gold_bad, dtype=int)),
        "claims_per_s": len(pairs) / seconds if seconds else 0.0,
    }
    kinds: dict[str, list[bool]] = defaultdict(list)
    for pair, is_flagged, label in zip(pairs, flagged, labels, strict=True):
        correct = is_flagged == (not pair.entailed)
        if pair.kind != "natural":
            kinds[pair.kind].append(correct)
        if pair.contradicted == 1:
            kinds["contradicted_label_given"].append(label == "contradicted")
    if kinds:
        out["per_kind_accuracy"] = {k: float(np.mean(v)) for k, v in sorted(kinds.items())}
    return out


def sample_grouped(pairs: list[Pair], limit: int, seed: int) -> list[Pair]:
    if limit and len(pairs) > limit:
        pairs = random.Random(seed).sample(pairs, limit)
    return sorted(pairs, key=lambda p: p.evidence)


def pair_sets(limit: int, seed: int) -> dict[str, list[Pair]]:
    return {
        "wice": sample_grouped(list(wice("test")), limit, seed),
        "qags": sample_grouped(list(qags()), limit, seed),
        "summedits": sample_grouped(list(summedits(domains=HELD_OUT_SUMMEDITS)), limit, seed),
        "probes": sample_grouped(load_probes(), 0, seed),
        "probes_seed11": sample_grouped(load_probes(FRESH_PROBES), 0, seed),
    }


def _line(name: str, m: dict[str, float]) -> str:
    return (
        f"  {name:<14} P {m['precision']:.3f}  R {m['recall']:.3f}  F1 {m['f1']:.3f}  "
        f"BA {m['balanced_accuracy']:.3f}   (trivial F1 {m['trivial_f1']:.3f})"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default="ragtruth,wice,qags,summedits,probes,probes_seed11")
    parser.add_argument("--limit", type=int, default=0, help="at most N pairs per pair set")
    parser.add_argument("--cv", type=int, default=5, help="RAGTruth: grouped CV folds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    wanted = [s.strip() for s in args.sets.split(",") if s.strip()]

    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm up"])
    memo = MemoEmbedder(embedder)
    verifier = local_chain(memo, answer_level=False)
    model = EntailmentModel.shared()
    results: dict[str, Any] = {
        "verifier": verifier.version,
        "entailment_model": model.manifest.get("name"),
    }
    print(f"verifier {verifier.version}, entailment model {model.name}")
    available = pair_sets(args.limit, args.seed)
    for name in wanted:
        if name == "ragtruth":
            records = ragtruth.load_records(ragtruth.DEFAULT_DATA)
            if args.limit:
                records = records[: args.limit]
            result = ragtruth.run_local(records, embedder, ragtruth.TOP_K, args.cv, args.seed)
            results[name] = result
            print(f"== ragtruth dev ({args.cv}-fold grouped CV), {len(records)} responses")
            r = result["response_level"]
            print(_line("response", r | {"trivial_f1": r["trivial_f1"]}))
            for task, m in result["by_task"].items():
                print(_line(task, m | {"trivial_f1": float("nan")}))
            print(f"  span F1 {result['span_level']['f1']:.3f}")
            continue
        result = score_pairs(available[name], verifier, memo)
        results[name] = result
        print(f"== {name}: {result['pairs']} pairs, {result['claims_per_s']:.1f} claims/s")
        print(_line("verifier", result["verifier"]))
        print(_line("model alone", result["model_alone"]) + f"  AUC {result['model_auc']:.3f}")
        for kind, accuracy in result.get("per_kind_accuracy", {}).items():
            print(f"    {kind:<26} {accuracy:.3f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
