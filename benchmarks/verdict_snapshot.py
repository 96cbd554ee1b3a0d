"""Every verdict of the no-regression set, one JSON line each, to compare two verifier versions
verdict for verdict (label, probability, deciding stage).

    python -m benchmarks.verdict_snapshot --out FILE [--sets ragtruth,pairs,specifics]
                                          [--seeds 0,1,2,3,4] [--limit 300]
    python -m benchmarks.verdict_snapshot --compare BEFORE AFTER [--limit 300]
    python -m benchmarks.verdict_snapshot --record FILE   # its figures as the shipped chain's

The sets are those the no-regression rule names: RAGTruth dev (the shipped chain's verdict of
every claim, the features the learned model reads, and the grouped 5-fold CV figures per
seed), the held-out pair sets and the minimal-edit probes (``benchmarks.verifier_eval``, at
most ``--limit`` pairs each) and the specifics benchmark (``benchmarks.specifics``). A
refactoring that changes no decision gives two files whose rows are equal; ``--compare``
counts the rows whose label or probability differ, per set, and the deciding stages that moved,
and gives bootstrap 95 % intervals of the difference in F1 and balanced accuracy (RAGTruth's CV
and each pair set; ``benchmarks/bootstrap.py``).
``--record`` keeps a full snapshot's figures as those measured for the shipped chain
(``verification/stages/measured.json``, under the chain's digest), which the CLI, the report and
``audit-pipeline verifier`` then quote.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from audit_pipeline.embedding import MemoEmbedder, SentenceTransformerEmbedder
from audit_pipeline.records.verdicts import HALLUCINATION_LABELS, Verdict
from audit_pipeline.verification.configured import build_verifier, local_chain
from audit_pipeline.verification.detection_settings import DetectionSettings
from audit_pipeline.verification.stages.measured import record_figures
from benchmarks import bootstrap, ragtruth, specifics, verifier_eval


def _row(kind: str, key: str, verdict: Verdict, **extra: Any) -> dict[str, Any]:
    return {
        "set": kind,
        "id": key,
        "label": verdict.label.value,
        "probability": verdict.probability,
        "decided_by": verdict.decided_by,
        "justification": hashlib.sha256(verdict.justification.encode()).hexdigest()[:12],
        "spans": [list(s) for s in verdict.error_spans],
        "suspect": verdict.answer_suspect,
        **extra,
    }


def snapshot(
    sets: set[str], seeds: Sequence[int], limit: int, records: int = 0
) -> list[dict[str, Any]]:
    embedder = SentenceTransformerEmbedder()
    memo = MemoEmbedder(embedder)
    rows: list[dict[str, Any]] = []
    summary: dict[str, Any] = {}
    started = time.perf_counter()
    if "ragtruth" in sets:
        rows_in = ragtruth.load_records(ragtruth.DEFAULT_DATA)
        prepared = ragtruth.prepare(
            rows_in[:records] if records else rows_in, embedder, ragtruth.TOP_K
        )
        chain = local_chain(embedder)
        for item in prepared:
            verdicts = ragtruth._local_verdicts(chain, item)
            for claim, verdict, alignment in zip(
                item.claims, verdicts, item.alignments, strict=True
            ):
                features = hashlib.sha256(alignment.vector().tobytes()).hexdigest()[:12]
                key = f"{item.record.record_id}:{claim.start}"
                rows.append(_row("ragtruth", key, verdict, features=features))
        cv = ragtruth.mean_over_seeds(prepared, embedder, 5, seeds)
        summary["ragtruth_cv"] = {
            k: cv[k] for k in ("response_level", "by_task", "per_seed", "predictions")
        }
        print("ragtruth", json.dumps(cv["response_level"]), flush=True)
    if "pairs" in sets:
        chain = local_chain(memo, answer_level=False)
        for name, pairs in verifier_eval.pair_sets(limit, 0).items():
            verdicts: list[Verdict] = []
            result = verifier_eval.score_pairs(pairs, chain, memo, verdicts)
            summary[name] = result["verifier"]
            print(name, json.dumps(result["verifier"]), flush=True)
            rows.extend(
                _row(name, str(i), v, gold=not pair.entailed)
                for i, (pair, v) in enumerate(zip(pairs, verdicts, strict=True))
            )
    if "specifics" in sets:
        claims = specifics.load_claims(specifics.DEFAULT_OUT)
        verifier = build_verifier(DetectionSettings(), embedder)
        outcomes, _ = specifics.run(specifics.DEFAULT_OUT, claims, embedder, verifier)
        rows.extend(_row("specifics", o.claim.id, o.verdict) for o in outcomes)
        summary["specifics"] = specifics.figures(outcomes)["overall"]
        print("specifics", json.dumps(summary["specifics"]), flush=True)
    summary["seconds"] = time.perf_counter() - started
    return [{"summary": summary}, *rows]


_FLAGGED = frozenset(str(label) for label in HALLUCINATION_LABELS)


def compare(before: Path, after: Path, limit: int = 300) -> dict[str, Any]:
    """Per set: rows compared, label or probability changed, deciding stage changed (and to
    what), features changed; the two summaries side by side."""

    def load(path: Path) -> tuple[dict[str, Any], dict[tuple[str, str], dict[str, Any]]]:
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        return lines[0]["summary"], {(r["set"], r["id"]): r for r in lines[1:]}

    summary_a, rows_a = load(before)
    summary_b, rows_b = load(after)
    out: dict[str, Any] = {"missing": sorted(map(list, rows_a.keys() ^ rows_b.keys()))[:20]}
    per_set: dict[str, Counter[str]] = {}
    for key in sorted(rows_a.keys() & rows_b.keys()):
        a, b = rows_a[key], rows_b[key]
        counts = per_set.setdefault(key[0], Counter())
        counts["rows"] += 1
        if (a["label"], a["probability"]) != (b["label"], b["probability"]):
            counts["verdict_changed"] += 1
        if a["decided_by"] != b["decided_by"]:
            counts[f"decided_by {a['decided_by']} -> {b['decided_by']}"] += 1
        if a.get("features") != b.get("features"):
            counts["features_changed"] += 1
        if a["spans"] != b["spans"]:
            counts["spans_changed"] += 1
    out["sets"] = {name: dict(counts) for name, counts in per_set.items()}
    out["intervals"] = _intervals(summary_a, summary_b, rows_a, rows_b, limit)
    for summary in (summary_a, summary_b):
        summary.get("ragtruth_cv", {}).pop("predictions", None)
    out["summary_before"], out["summary_after"] = summary_a, summary_b
    return out


def _intervals(
    summary_a: dict[str, Any],
    summary_b: dict[str, Any],
    rows_a: dict[tuple[str, str], dict[str, Any]],
    rows_b: dict[tuple[str, str], dict[str, Any]],
    limit: int,
) -> dict[str, Any]:
    """Bootstrap 95 % intervals (``benchmarks/bootstrap.py``) of the no-regression figures:
    RAGTruth's CV (mean over seeds) and each held-out pair set, paired where both snapshots
    hold the rows."""
    found: dict[str, Any] = {}
    after_cv = summary_b.get("ragtruth_cv", {}).get("predictions")
    if after_cv:
        before_cv = summary_a.get("ragtruth_cv", {}).get("predictions")
        paired = before_cv is not None and before_cv["ids"] == after_cv["ids"]
        found["ragtruth"] = bootstrap.intervals(
            before_cv["per_seed"] if paired and before_cv else None,
            after_cv["per_seed"],
            after_cv["gold"],
        )
        if not paired:
            found["ragtruth"]["before"] = summary_a.get("ragtruth_cv", {}).get("response_level")
    gold_by_set: dict[str, list[bool]] = {}
    for name in ("wice", "qags", "summedits", "probes", "probes_seed11"):
        keys = sorted((k for k in rows_b if k[0] == name), key=lambda k: int(k[1]))
        if not keys or any(k not in rows_a for k in keys):
            continue
        if "gold" not in rows_b[keys[0]]:
            if not gold_by_set:  # snapshots from before the rows kept their gold label
                gold_by_set = {
                    n: [not p.entailed for p in pairs]
                    for n, pairs in verifier_eval.pair_sets(limit, 0).items()
                }
            gold = gold_by_set[name]
            if len(gold) != len(keys):
                found[name] = f"snapshot of another --limit than {limit}: no interval"
                continue
        else:
            gold = [bool(rows_b[k]["gold"]) for k in keys]
        found[name] = bootstrap.intervals(
            [[rows_a[k]["label"] in _FLAGGED for k in keys]],
            [[rows_b[k]["label"] in _FLAGGED for k in keys]],
            gold,
        )
    return found


def record(path: Path) -> str:
    """Keep the figures of the full snapshot at ``path`` for the shipped (default) chain."""
    summary = json.loads(path.read_text(encoding="utf-8").splitlines()[0])["summary"]
    cv = summary["ragtruth_cv"]
    cv.pop("predictions", None)  # per-response rows are for intervals, not for the package
    response = cv["response_level"]
    seeds = ",".join(str(run["seed"]) for run in cv["per_seed"])
    pairs = "; ".join(
        f"{name} F1 {summary[name]['f1']:.3f} BA {summary[name]['balanced_accuracy']:.3f}"
        for name in ("wice", "qags", "summedits", "probes", "probes_seed11")
    )
    found = summary["specifics"]
    line = (
        f"RAGTruth dev 5-fold grouped CV (seeds {seeds}): F1 {response['f1']:.3f}, "
        f"BA {response['balanced_accuracy']:.3f} (trivial F1 {response['trivial_f1']:.3f}); "
        f"held-out pairs, each claim read alone: {pairs}; specifics benchmark: recall "
        f"{found['recall']:.3f}, false alarms {found['false_alarm_rate']:.3f}; "
        f"measured {date.today().isoformat()}"
    )
    chain = local_chain(None)
    record_figures(chain.digest, {"summary": line, **summary})
    return line


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--record", type=Path, metavar="SNAPSHOT")
    parser.add_argument("--sets", default="ragtruth,pairs,specifics")
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--limit", type=int, default=300, help="pairs per pair set")
    parser.add_argument(
        "--records",
        type=int,
        default=0,
        help="RAGTruth: only the first N responses (a quick check)",
    )
    args = parser.parse_args(argv)
    if args.compare:
        before, after = args.compare
        print(json.dumps(compare(before, after, limit=args.limit), indent=1))
        return 0
    if args.record:
        print(record(args.record))
        return 0
    if args.out is None:
        parser.error("--out or --compare")
    seeds = [int(s) for s in args.seeds.split(",") if s]
    rows = snapshot(set(args.sets.split(",")), seeds, args.limit, args.records)
    with args.out.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
