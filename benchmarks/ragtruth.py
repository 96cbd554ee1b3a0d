"""RAGTruth benchmark: claims -> evidence from each record's own source -> verdicts.

    python -m benchmarks.ragtruth [--data PATH] [--verifier local|llm|cascade] [--json OUT]
    python -m benchmarks.ragtruth --cv 5          # honest figures for the local verifier
    python -m benchmarks.ragtruth --cv 5 --seeds 0-4   # the no-regression figure: mean of 5 seeds

Runs on any RAGTruth-format JSONL (``task_type``, ``source_info``, ``response``, ``labels``).
A response is predicted hallucinated when any of its claims is unsupported or contradicted,
or the chain flags the answer as suspect (its answer-level model reads a hallucination no claim
shows: ``Verdict.answer_suspect``, a flag on the answer, not a claim label, so it adds no span);
for the local verifier the claim labels come from its chain, whose learned model reconciles
them with its answer-level model (``--response-rule claims``: per-claim verdicts alone).

Prints response-level precision / recall / F1 and balanced accuracy (positive = has a
hallucination) overall and per task type, the trivial all-hallucinated F1, character-overlap
span P/R/F1 (predicted spans = the spans of unsupported/contradicted claims) and throughput.

The shipped model is fitted on the dev split, so its figures on dev are optimistic; ``--cv K``
refits on K-1 folds (grouped by ``source_id``) and scores the held-out fold, with every
threshold chosen inside the training folds.

Only ``task_type``, ``source_info``, ``response`` and ``labels`` are read for detection and
scoring (``source_id`` only to group folds). ``model``, ``quality``, ``temperature`` and the
like describe how the data was made, are not available when auditing a real bot, and never
reach a feature; the task type only decides how the source is cut into passages.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from audit_pipeline.claims import Claim, SentenceClaimExtractor
from audit_pipeline.embedding import Embedder, MemoEmbedder, SentenceTransformerEmbedder
from audit_pipeline.evidence import ContextEvidence
from audit_pipeline.evidence.passages import ContextPassage, record_passages, text_passages
from audit_pipeline.verification import (
    HALLUCINATION_LABELS,
    Answer,
    Verdict,
    VerifierChain,
    verify_answer,
)
from audit_pipeline.verification.batch import Batch
from audit_pipeline.verification.configured import local_chain
from audit_pipeline.verification.features import Alignment, alignment_analysis
from audit_pipeline.verification.training import TrainingSet, fit_local_model, subset

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared/benchmarks/ragtruth/dev.jsonl"
TASKS = ("QA", "Summary", "Data2txt")
TOP_K = 20  # RAGTruth sources cut into <= ~20 passages: each claim sees its whole source
Span = tuple[int, int]


# ----------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Record:
    record_id: str
    source_id: str
    task_type: str
    response: str
    hallucinated_spans: tuple[Span, ...]
    passages: tuple[ContextPassage, ...]

    @property
    def has_hallucination(self) -> bool:
        return bool(self.hallucinated_spans)


def source_passages(task_type: str, source_info: Any) -> list[ContextPassage]:
    """The record's grounding as passages; the task type only decides how it is cut up."""
    if task_type == "QA" and isinstance(source_info, dict):
        out = [ContextPassage(str(source_info.get("question", "")), "question", "question")]
        chunks = re.split(r"(?:^|\n)\s*passage \d+:", str(source_info.get("passages", "")))
        for number, chunk in enumerate((c for c in chunks if c.strip()), start=1):
            out.extend(
                ContextPassage(f"passage {number}: {p.text}", p.document, p.section)
                for p in text_passages(chunk.strip(), f"passage {number}")
            )
        return out
    if isinstance(source_info, (dict, list)):
        return record_passages(source_info, "record")
    text = str(source_info)
    if text.lstrip().startswith(("{", "[")):
        return record_passages(text, "record")
    return text_passages(text, "source")


def load_records(path: Path | str) -> list[Record]:
    records: list[Record] = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            row = json.loads(line)
            spans = tuple(
                (int(label["start"]), int(label["end"])) for label in row.get("labels") or ()
            )
            task = str(row.get("task_type", "unknown"))
            records.append(
                Record(
                    record_id=str(row.get("id", len(records))),
                    source_id=str(row.get("source_id", row.get("id", len(records)))),
                    task_type=task,
                    response=str(row["response"]),
                    hallucinated_spans=spans,
                    passages=tuple(source_passages(task, row.get("source_info", ""))),
                )
            )
    return records


def claim_labels(claims: Sequence[Claim], spans: Sequence[Span]) -> list[int]:
    """1 for a claim whose span overlaps a human-marked hallucinated span."""
    return [int(any(c.start < e and s < c.end for s, e in spans)) for c in claims]


# ----------------------------------------------------------------------------- engine


@dataclass
class Prepared:
    """One record after claim extraction, evidence ranking and (in ``batch``) the analyses
    the verifier's stages read, computed once for every chain run over it."""

    record: Record
    claims: list[Claim]
    evidence: list[list[Any]]
    batch: Batch | None = None

    @property
    def alignments(self) -> list[Alignment]:
        assert self.batch is not None, "prepared without align"
        return self.batch.analysis(alignment_analysis)


class EvidenceCache:
    """One ``ContextEvidence`` per distinct source, so its passages are embedded once.

    RAGTruth has several answers per source; only the most recent sources are kept.
    """

    def __init__(self, embedder: Embedder, top_k: int, capacity: int = 64) -> None:
        self.embedder, self.top_k, self.capacity = embedder, top_k, capacity
        self._by_source: dict[tuple[ContextPassage, ...], ContextEvidence] = {}

    def for_record(self, record: Record, claims: Sequence[Claim]) -> list[list[Any]]:
        evidence = self._by_source.pop(record.passages, None)
        if evidence is None:
            evidence = ContextEvidence(record.passages, self.embedder, self.top_k)
        self._by_source[record.passages] = evidence
        while len(self._by_source) > self.capacity:
            del self._by_source[next(iter(self._by_source))]
        return evidence.for_claims([c.text for c in claims])


def prepare(
    records: Sequence[Record], embedder: Embedder, top_k: int = TOP_K, align: bool = True
) -> list[Prepared]:
    """Claims, ranked evidence and (with ``align``) local-verifier features for each record."""
    extractor = SentenceClaimExtractor()
    memo = MemoEmbedder(embedder)  # claims are embedded once for ranking and for alignment
    cache = EvidenceCache(memo, top_k)
    out = []
    for record in records:
        claims = extractor.extract(record.response)
        item = Prepared(record, claims, cache.for_record(record, claims))
        if align:
            item.batch = Batch([Answer.of(claims, item.evidence)], memo)
            item.batch.analysis(alignment_analysis)
        out.append(item)
    return out


# ----------------------------------------------------------------------------- metrics


def _prf(tp: float, fp: float, fn: float) -> dict[str, float]:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def response_metrics(predicted: Sequence[bool], gold: Sequence[bool]) -> dict[str, float]:
    p, g = np.asarray(predicted, dtype=bool), np.asarray(gold, dtype=bool)
    tp, fp = float(np.sum(p & g)), float(np.sum(p & ~g))
    fn, tn = float(np.sum(~p & g)), float(np.sum(~p & ~g))
    out = _prf(tp, fp, fn)
    tpr = tp / (tp + fn) if tp + fn else 0.0
    tnr = tn / (tn + fp) if tn + fp else 0.0
    out["balanced_accuracy"] = (tpr + tnr) / 2
    return out


def span_metrics(
    predicted: Sequence[Sequence[Span]], gold: Sequence[Sequence[Span]]
) -> dict[str, float]:
    """Character-overlap precision / recall / F1, summed over all responses."""
    overlap = predicted_chars = gold_chars = 0
    for pred_spans, gold_spans in zip(predicted, gold, strict=True):
        pred_set = {i for s, e in pred_spans for i in range(s, e)}
        gold_set = {i for s, e in gold_spans for i in range(s, e)}
        overlap += len(pred_set & gold_set)
        predicted_chars += len(pred_set)
        gold_chars += len(gold_set)
    return _prf(overlap, predicted_chars - overlap, gold_chars - overlap)


def report(
    records: Sequence[Record],
    verdicts: Sequence[Sequence[Verdict]],
    claims: Sequence[Sequence[Claim]],
    seconds: float,
) -> dict[str, Any]:
    predicted = [
        any(v.label in HALLUCINATION_LABELS or v.answer_suspect for v in vs) for vs in verdicts
    ]
    gold = [r.has_hallucination for r in records]
    overall = response_metrics(predicted, gold)
    positives = sum(gold)
    overall["trivial_f1"] = 2 * positives / (positives + len(gold)) if gold else 0.0
    by_task = {}
    for task in sorted({r.task_type for r in records}):
        rows = [i for i, r in enumerate(records) if r.task_type == task]
        by_task[task] = response_metrics([predicted[i] for i in rows], [gold[i] for i in rows])
    flagged_spans = [
        [(c.start, c.end) for c, v in zip(cs, vs, strict=True) if v.label in HALLUCINATION_LABELS]
        for cs, vs in zip(claims, verdicts, strict=True)
    ]
    # The same, pointing inside a flagged claim at the numbers and names the evidence lacks.
    pointed = [
        [
            span
            for c, v in zip(cs, vs, strict=True)
            if v.label in HALLUCINATION_LABELS
            for span in (
                [(c.start + s, c.start + e) for s, e in v.error_spans] or [(c.start, c.end)]
            )
        ]
        for cs, vs in zip(claims, verdicts, strict=True)
    ]
    n_claims = sum(len(cs) for cs in claims)
    return {
        "response_level": overall,
        "by_task": by_task,
        "span_level": span_metrics(flagged_spans, [r.hallucinated_spans for r in records]),
        "span_level_pointed": span_metrics(pointed, [r.hallucinated_spans for r in records]),
        "throughput": {
            "responses_per_s": len(records) / seconds if seconds else 0.0,
            "claims_per_s": n_claims / seconds if seconds else 0.0,
        },
        "counts": {"responses": len(records), "hallucinated": positives, "claims": n_claims},
        # Per response, in record order: what a bootstrap over responses resamples.
        "predicted": predicted,
        "gold": gold,
    }


# ----------------------------------------------------------------------------- runs


def training_set(prepared: Sequence[Prepared]) -> TrainingSet:
    features, labels, owner = [], [], []
    for index, item in enumerate(prepared):
        features.extend(a.vector() for a in item.alignments)
        labels.extend(claim_labels(item.claims, item.record.hallucinated_spans))
        owner.extend([index] * len(item.claims))
    width = len(prepared[0].alignments[0].vector()) if features else 0
    return TrainingSet(
        claim_features=np.array(features).reshape(len(features), width),
        claim_labels=np.array(labels, dtype=int),
        claim_response=np.array(owner, dtype=int),
        response_labels=np.array([int(p.record.has_hallucination) for p in prepared]),
        groups=np.array([p.record.source_id for p in prepared]),
    )


def _local_verdicts(verifier: VerifierChain, item: Prepared) -> list[Verdict]:
    assert item.batch is not None
    return verifier.verify_batch(item.batch)[0].verdicts


def run_local(
    records: Sequence[Record],
    embedder: Embedder,
    top_k: int,
    cv: int,
    seed: int,
    calibrated: bool = True,
) -> dict[str, Any]:
    """Local verifier; ``calibrated=False`` labels each claim by the claim model alone."""
    started = time.perf_counter()
    prepared = prepare(records, embedder, top_k)
    # Throughput is that of the shipped model: fitting fold models is not auditing work.
    seconds = time.perf_counter() - started
    if not cv:
        verifier = local_chain(embedder, answer_level=calibrated)
        verdicts = [_local_verdicts(verifier, item) for item in prepared]
        seconds = time.perf_counter() - started
        return report(records, verdicts, [p.claims for p in prepared], seconds)
    return cross_validate(prepared, embedder, cv, seed, seconds, calibrated)


def cross_validate(
    prepared: Sequence[Prepared],
    embedder: Embedder,
    cv: int,
    seed: int,
    seconds: float = 0.0,
    calibrated: bool = True,
) -> dict[str, Any]:
    """Refit on K-1 folds grouped by source, score the held-out fold; every threshold is
    chosen inside the training folds."""
    from sklearn.model_selection import GroupKFold

    data = training_set(prepared)
    verdicts_by_record: list[list[Verdict]] = [[] for _ in prepared]
    splitter = GroupKFold(n_splits=cv, shuffle=True, random_state=seed)
    for train, held in splitter.split(np.zeros(len(prepared)), groups=data.groups):
        model = fit_local_model(subset(data, train), seed=seed, version=f"cv-fold-seed{seed}")
        fold_verifier = local_chain(embedder, model, answer_level=calibrated)
        for index in held:
            verdicts_by_record[index] = _local_verdicts(fold_verifier, prepared[index])
    records = [p.record for p in prepared]
    return report(records, verdicts_by_record, [p.claims for p in prepared], seconds)


def mean_over_seeds(
    prepared: Sequence[Prepared], embedder: Embedder, cv: int, seeds: Sequence[int]
) -> dict[str, Any]:
    """Grouped CV once per seed over the same prepared records; the response-level figures,
    overall and per task, averaged over the seeds (the verifier's no-regression figure)."""
    runs = [cross_validate(prepared, embedder, cv, seed) for seed in seeds]

    def mean(pick: Any) -> float:
        return float(np.mean([pick(run) for run in runs]))

    keys = ("precision", "recall", "f1", "balanced_accuracy")
    return {
        "seeds": list(seeds),
        "response_level": {k: mean(lambda r, k=k: r["response_level"][k]) for k in keys}
        | {"trivial_f1": runs[0]["response_level"]["trivial_f1"]},
        "by_task": {
            task: {k: mean(lambda r, t=task, k=k: r["by_task"][t][k]) for k in keys}
            for task in runs[0]["by_task"]
        },
        "span_f1": mean(lambda r: r["span_level"]["f1"]),
        "per_seed": [
            {
                "seed": seed,
                "f1": run["response_level"]["f1"],
                "balanced_accuracy": run["response_level"]["balanced_accuracy"],
            }
            for seed, run in zip(seeds, runs, strict=True)
        ],
        # Each seed's held-out prediction per response, for a bootstrap interval
        # (``benchmarks/bootstrap.py``).
        "predictions": {
            "ids": [p.record.record_id for p in prepared],
            "gold": runs[0]["gold"],
            "per_seed": [run["predicted"] for run in runs],
        },
    }


def _seed_list(text: str) -> list[int]:
    """ "0-4" or "0,1,2" """
    if "-" in text:
        low, high = text.split("-", 1)
        return list(range(int(low), int(high) + 1))
    return [int(part) for part in text.split(",") if part.strip()]


def run_verifier(
    records: Sequence[Record], embedder: Embedder, verifier: Any, top_k: int
) -> dict[str, Any]:
    started = time.perf_counter()
    prepared = prepare(records, embedder, top_k, align=False)
    verdicts = [verify_answer(verifier, item.claims, item.evidence).verdicts for item in prepared]
    seconds = time.perf_counter() - started
    return report(records, verdicts, [p.claims for p in prepared], seconds)


def _print(result: dict[str, Any], title: str) -> None:
    r = result["response_level"]
    print(f"== {title}")
    counts = result["counts"]
    print(
        f"responses {counts['responses']} (hallucinated {counts['hallucinated']}), "
        f"claims {counts['claims']}"
    )
    print(
        f"response level  P {r['precision']:.3f}  R {r['recall']:.3f}  F1 {r['f1']:.3f}  "
        f"BA {r['balanced_accuracy']:.3f}   (trivial all-hallucinated F1 {r['trivial_f1']:.3f})"
    )
    for task, m in result["by_task"].items():
        print(
            f"  {task:<9} P {m['precision']:.3f}  R {m['recall']:.3f}  F1 {m['f1']:.3f}  "
            f"BA {m['balanced_accuracy']:.3f}"
        )
    s = result["span_level"]
    print(f"span level      P {s['precision']:.3f}  R {s['recall']:.3f}  F1 {s['f1']:.3f}")
    s = result["span_level_pointed"]
    print(f"  sub-spans     P {s['precision']:.3f}  R {s['recall']:.3f}  F1 {s['f1']:.3f}")
    t = result["throughput"]
    print(
        f"throughput      {t['responses_per_s']:.2f} responses/s, {t['claims_per_s']:.1f} claims/s"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--verifier", choices=("local", "llm", "cascade"), default="local")
    parser.add_argument("--judge-model", default=None, help="litellm model id for llm/cascade")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("--cv", type=int, default=0, help="K-fold grouped cross-validation")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--seeds", default="", help="with --cv: several seeds (0-4 or 0,1,2), mean reported"
    )
    parser.add_argument("--top-k", type=int, default=TOP_K)
    parser.add_argument("--limit", type=int, default=0, help="only the first N records")
    parser.add_argument(
        "--response-rule",
        choices=("calibrated", "claims"),
        default="calibrated",
        help="local verifier: reconcile claims with the answer-level model, or label each claim"
        " by the claim model alone",
    )
    args = parser.parse_args(argv)

    records = load_records(args.data)
    if args.limit:
        records = records[: args.limit]
    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm up"])  # model load is not per-response work
    if args.verifier == "local" and args.seeds:
        if not args.cv:
            parser.error("--seeds needs --cv")
        started = time.perf_counter()
        prepared = prepare(records, embedder, args.top_k)
        seconds = time.perf_counter() - started
        summary = mean_over_seeds(prepared, embedder, args.cv, _seed_list(args.seeds))
        summary["claims_per_s"] = sum(len(p.claims) for p in prepared) / seconds
        r = summary["response_level"]
        print(f"== local verifier, {args.cv}-fold grouped CV, seeds {args.seeds}, {args.data}")
        print(
            f"mean response level  P {r['precision']:.3f}  R {r['recall']:.3f}  "
            f"F1 {r['f1']:.3f}  BA {r['balanced_accuracy']:.3f}  (trivial F1 {r['trivial_f1']:.3f})"
        )
        for task, m in summary["by_task"].items():
            print(f"  {task:<9} F1 {m['f1']:.3f}  BA {m['balanced_accuracy']:.3f}")
        for run in summary["per_seed"]:
            print(f"  seed {run['seed']}: F1 {run['f1']:.3f}  BA {run['balanced_accuracy']:.3f}")
        print(
            f"span F1 {summary['span_f1']:.3f}; {summary['claims_per_s']:.1f} claims/s (features)"
        )
        if args.json:
            args.json.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        return 0
    if args.verifier == "local":
        calibrated = args.response_rule == "calibrated"
        result = run_local(records, embedder, args.top_k, args.cv, args.seed, calibrated)
        title = f"local verifier ({args.response_rule})" + (
            f", {args.cv}-fold CV" if args.cv else ""
        )
    else:
        if args.cv:
            parser.error("--cv applies to the local verifier only")
        if not args.judge_model:
            parser.error("--judge-model is required for llm and cascade")
        from audit_pipeline.llm.judge_settings import JudgeSettings
        from audit_pipeline.verification.configured import build_verifier
        from audit_pipeline.verification.detection_settings import DetectionSettings

        settings = DetectionSettings(
            verifier=args.verifier, judge=JudgeSettings(model=args.judge_model)
        )
        verifier = build_verifier(settings, embedder)
        result = run_verifier(records, embedder, verifier, args.top_k)
        title = f"{args.verifier} ({args.judge_model})"
    _print(result, f"{title} on {args.data}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
