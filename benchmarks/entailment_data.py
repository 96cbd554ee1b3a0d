"""Model inputs for the entailment cross-encoder: (evidence window, claim, labels) rows.

    python -m benchmarks.entailment_data --out rows.jsonl.xz [--scale 1.0] [--seed 0]
                                         [--window-words 80] [--eval-out eval.jsonl.xz]

Building the rows needs ``../shared/datasets`` and the project's window code; fitting them
(``benchmarks.train_entailment``) needs only torch and transformers. Splitting the two lets
the fit run on a GPU machine that has neither the shared data nor the project's
dependencies: the rows file (xz-compressed JSON lines) is all it reads.

Training rows: the natural pairs of ``verifier_data`` (held-out sets excluded, split by
document) plus synthetic minimal edits of the same training evidence. Evaluation rows: the
held-out pair sets (WiCE test, QAGS, the held-out SummEdits domains, the vault probes) and
every RAGTruth dev claim as the audit reads it (the product's retrieval and window path),
with its human label, task and response, so the model alone can be scored at claim and
response level. No evaluation row is ever trained on.
"""

from __future__ import annotations

import argparse
import json
import lzma
import random
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from audit_pipeline.verification.entailment import EntailmentScores
from audit_pipeline.verification.windows import WINDOW_WORDS, claim_window, evidence_sentences
from benchmarks.minimal_edits import (
    BASELESS,
    CONTRADICTING,
    MEANING_BASELESS,
    MEANING_CONTRADICTING,
    make_edit,
    names,
)
from benchmarks.verifier_data import (
    HELD_OUT_SUMMEDITS,
    Pair,
    qags,
    split_of,
    summedits,
    training_pairs,
    wice,
)

# Longer "claims" (whole summaries) are cut: the evidence window needs the room.
CLAIM_WORDS = 60
# Synthetic edits per contradicting/baseless kind, and faithful rewrites overall (at scale 1).
PER_EDIT_KIND = 4000
FAITHFUL_TOTAL = 30000
EDITS_PER_DOCUMENT = 3


def synthetic_pairs(natural: Sequence[Pair], seed: int, scale: float) -> list[Pair]:
    """Minimal edits of sentences from the training evidence (one document, one sentence)."""
    rng = random.Random(seed + 1)
    documents: dict[str, str] = {}
    for pair in natural:
        documents.setdefault(pair.group, pair.evidence)
    groups = sorted(documents)
    rng.shuffle(groups)
    edits = CONTRADICTING + BASELESS + MEANING_CONTRADICTING + MEANING_BASELESS
    wanted = dict.fromkeys(edits, int(PER_EDIT_KIND * scale))
    wanted |= {"restate": int(FAITHFUL_TOTAL * scale * 0.3)}
    wanted |= {"copy": int(FAITHFUL_TOTAL * scale * 0.2)}
    wanted |= {"clause": int(FAITHFUL_TOTAL * scale * 0.4)}
    wanted |= {"reword": int(FAITHFUL_TOTAL * scale * 0.4)}
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
        kinds = [kind for kind, left in wanted.items() if left > 0]
        rng.shuffle(kinds)
        made = 0
        for kind in kinds:
            # Each edit of a document starts from its own sentence, so one document does not
            # teach the same sentence both ways.
            edit = make_edit(kind, rng.choice(sentences), rng, pool)
            if edit is None:
                continue
            wanted[kind] -= 1
            out.append(
                Pair(text, edit.claim, edit.entailed, edit.contradicted, "synthetic", group, kind)
            )
            made += 1
            if made == EDITS_PER_DOCUMENT:
                break
    return out


def policy_pairs(seed: int) -> list[Pair]:
    """Every applicable edit of each prose sentence of the meaning benchmark's dev vaults.

    News and dialogue rarely state duties, conditions or parties, so the meaning edits find
    few sentences there; policy prose has them in every paragraph. Only the development
    domains are read (``meaning_data.DEV_DOMAINS``): the test domains stay unseen, and the
    claims of the benchmark are never training rows (only the vault's own sentences, edited).
    """
    from benchmarks.make_probes import sections
    from benchmarks.meaning_data import DEFAULT_DATA, DEV_DOMAINS, VAULTS
    from benchmarks.minimal_edits import EDIT_TYPES, MEANING_FAITHFUL, edits_for

    rng = random.Random(seed + 2)
    kinds = EDIT_TYPES + MEANING_CONTRADICTING + MEANING_BASELESS + MEANING_FAITHFUL
    out: list[Pair] = []
    for domain in DEV_DOMAINS:
        found = sections(DEFAULT_DATA / VAULTS / domain)
        pool = names(" ".join(text for _, text in found))
        for document, text in found:
            group = f"policy:{domain}:{document}"
            for sentence in evidence_sentences([text.split("\n", 1)[1]]):
                if not 6 <= len(sentence.split()) <= 45:
                    continue
                for edit in edits_for(sentence, rng, pool, kinds):
                    out.append(
                        Pair(
                            text,
                            edit.claim,
                            edit.entailed,
                            edit.contradicted,
                            "policy_dev",
                            group,
                            edit.kind,
                        )
                    )
    return out


def windowed(pairs: Iterable[Pair], window_words: int = WINDOW_WORDS) -> list[dict[str, Any]]:
    """Model inputs: (claim-focused evidence window, claim) and the two labels."""
    sentences: dict[str, list[str]] = {}
    rows = []
    for pair in pairs:
        if pair.evidence not in sentences:
            sentences[pair.evidence] = evidence_sentences([pair.evidence])
        rows.append(
            {
                "window": claim_window(pair.claim, sentences[pair.evidence], window_words),
                "claim": " ".join(pair.claim.split()[:CLAIM_WORDS]),
                "labels": [float(pair.entailed), float(pair.contradicted)],
                "source": pair.source,
                "kind": pair.kind,
            }
        )
    return rows


def training_rows(seed: int, scale: float, window_words: int) -> list[dict[str, Any]]:
    natural = [p for p in training_pairs(seed, scale) if split_of(p.group) == "train"]
    synthetic = synthetic_pairs(natural, seed, scale)
    return windowed(natural + synthetic + policy_pairs(seed), window_words)


class _RecordingEntailment:
    """Stands where the cross-encoder sits in a verifier batch and keeps what it is asked."""

    def __init__(self, window_words: int) -> None:
        self.window_words = window_words
        self.pairs: list[tuple[str, str]] = []

    def score(self, pairs: Sequence[tuple[str, str]]) -> EntailmentScores:
        self.pairs.extend(pairs)
        zeros = np.zeros(len(pairs))
        return EntailmentScores(entailed=zeros, contradicted=zeros)


def ragtruth_rows(window_words: int) -> list[dict[str, Any]]:
    """Every RAGTruth dev claim with the window the audit would show the model."""
    from audit_pipeline.embedding import MemoEmbedder, SentenceTransformerEmbedder
    from audit_pipeline.verification import Answer
    from audit_pipeline.verification.batch import Batch
    from audit_pipeline.verification.features import alignment_analysis
    from benchmarks import ragtruth

    records = ragtruth.load_records(ragtruth.DEFAULT_DATA)
    memo = MemoEmbedder(SentenceTransformerEmbedder())
    prepared = ragtruth.prepare(records, memo, ragtruth.TOP_K, align=False)
    recorder = _RecordingEntailment(window_words)
    rows = []
    for item in prepared:
        start = len(recorder.pairs)
        batch = Batch([Answer.of(item.claims, item.evidence)], memo)
        batch.entailment = recorder  # type: ignore[assignment]
        batch.analysis(alignment_analysis)
        labels = ragtruth.claim_labels(item.claims, item.record.hallucinated_spans)
        for (window, claim), bad in zip(recorder.pairs[start:], labels, strict=True):
            rows.append(
                {
                    "window": window,
                    "claim": claim,
                    "labels": [float(not bad), -1.0],
                    "source": f"ragtruth_{item.record.task_type}",
                    "kind": "natural",
                    "response": item.record.record_id,
                    "response_bad": int(item.record.has_hallucination),
                }
            )
    return rows


def evaluation_rows(window_words: int) -> list[dict[str, Any]]:
    from benchmarks.verifier_eval import load_probes

    rows = windowed(wice("test"), window_words)
    rows += windowed(qags(), window_words)
    rows += windowed(summedits(domains=HELD_OUT_SUMMEDITS), window_words)
    for row in windowed(load_probes(), window_words):
        rows.append(row | {"source": "probes"})
    return rows + ragtruth_rows(window_words)


def save_rows(rows: Sequence[dict[str, Any]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with lzma.open(path, "wt", encoding="utf-8", preset=9) as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def load_rows(path: Path | str) -> list[dict[str, Any]]:
    opener = lzma.open if str(path).endswith(".xz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in _lines(handle)]


def _lines(handle: Iterable[str]) -> Iterator[str]:
    return (line for line in handle if line.strip())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="training rows (.jsonl.xz)")
    parser.add_argument("--eval-out", type=Path, default=None, help="evaluation rows")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--window-words", type=int, default=WINDOW_WORDS)
    args = parser.parse_args(argv)
    rows = training_rows(args.seed, args.scale, args.window_words)
    save_rows(rows, args.out)
    print(f"{args.out}: {len(rows)} rows {dict(Counter(r['source'] for r in rows))}")
    if args.eval_out:
        held = evaluation_rows(args.window_words)
        save_rows(held, args.eval_out)
        print(f"{args.eval_out}: {len(held)} rows {dict(Counter(r['source'] for r in held))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
