"""The entailment cross-encoder alone on the meaning benchmark: does it read restatements as
entailed and meaning edits as not, before any check or learned combination has a say?

    python -m benchmarks.entailment_alone [--models DIR,DIR,...] [--json OUT]

Issue 31, item 2: a retrained model is measured alone on the held-out pair sets (its
manifest, ``benchmarks.train_entailment --eval-rows``) and on the meaning benchmark's domains
(here) before the chain may lean on it. Each claim is scored against the window of its own
document that the audit would show the model (``verification.windows.claim_window`` over the
document's sentences): retrieval is taken out, so the figure is the model's reading alone.

Prints, per split and model: ROC AUC of "not entailed" against the fabrication label, the
balanced accuracy at 0.5, the share of faithful claims read as entailed (> 0.5) and read as
contradicted (contradiction > 0.9, the issue's complaint), per faithful kind and per
fabrication type.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from audit_pipeline.verification.entailment import DEFAULT_DIR, EntailmentModel
from audit_pipeline.verification.windows import claim_window, evidence_sentences
from benchmarks.meaning_data import DEFAULT_DATA, FABRICATED, VAULTS, load_claims
from benchmarks.train_entailment import roc_auc


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _share(values: Sequence[bool]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def score_model(path: Path, data: Path = DEFAULT_DATA) -> dict[str, Any]:
    model = EntailmentModel(path)
    rows = load_claims(data)
    sentences: dict[str, list[str]] = {}
    pairs = []
    for row in rows:
        key = f"{row['domain']}/{row['document']}"
        if key not in sentences:
            text = (data / VAULTS / key).read_text(encoding="utf-8")
            sentences[key] = evidence_sentences([text])
        pairs.append((claim_window(row["claim"], sentences[key], model.window_words), row["claim"]))
    scores = model.score(pairs)
    out: dict[str, Any] = {}
    for split in ("dev", "test"):
        chosen = [i for i, r in enumerate(rows) if r["split"] == split]
        bad = [int(rows[i]["label"] == FABRICATED) for i in chosen]
        not_entailed = [1.0 - float(scores.entailed[i]) for i in chosen]
        faithful = [i for i in chosen if rows[i]["label"] != FABRICATED]
        fabricated = [i for i in chosen if rows[i]["label"] == FABRICATED]
        flagged = {i: scores.entailed[i] <= 0.5 for i in chosen}
        recall = _share([flagged[i] for i in fabricated]) or 0.0
        false_alarms = _share([flagged[i] for i in faithful]) or 0.0
        per_kind: dict[str, list[int]] = defaultdict(list)
        for i in chosen:
            per_kind[rows[i]["type"]].append(i)
        out[split] = {
            "auc": _rounded(roc_auc(not_entailed, bad)),
            "recall": recall,
            "false_alarm_rate": false_alarms,
            "balanced_accuracy": round((recall + 1 - false_alarms) / 2, 3),
            "faithful_read_contradicted": _share([scores.contradicted[i] > 0.9 for i in faithful]),
            "per_type_flagged": {
                kind: _share([flagged[i] for i in per_kind[kind]]) for kind in sorted(per_kind)
            },
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=str(DEFAULT_DIR), help="model folders, comma-separated")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    result = {name: score_model(Path(name), args.data) for name in args.models.split(",")}
    for name, figures in result.items():
        print(name)
        for split, f in figures.items():
            print(
                f"  {split:4s} AUC {f['auc']}  recall {f['recall']:.3f}  false alarms "
                f"{f['false_alarm_rate']:.3f}  BA {f['balanced_accuracy']:.3f}  faithful read "
                f"contradicted {f['faithful_read_contradicted']}"
            )
            print("       " + ", ".join(f"{k} {v}" for k, v in f["per_type_flagged"].items()))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
