"""Labelled (evidence, claim) pairs from ``../shared/datasets`` in one schema.

Every loader yields :class:`Pair` rows: the evidence text, the claim, whether the evidence
entails the claim, whether it contradicts it (``-1`` where the source does not say), the data
set, and a ``group`` naming the source document so that splits never put one document on
both sides. Data never enters the repository: it is read from the shared folder each time.

Held out of training entirely, for ``benchmarks.verifier_eval``: WiCE test, QAGS, and the
SummEdits domains in ``HELD_OUT_SUMMEDITS``. RAGTruth is never read here.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
HELD_OUT_SUMMEDITS = ("qmsumm", "sales_email")
UNKNOWN = -1


@dataclass(frozen=True)
class Pair:
    evidence: str
    claim: str
    entailed: int
    contradicted: int
    source: str
    group: str
    kind: str = "natural"


def split_of(group: str, dev_percent: int = 3) -> str:
    """``"dev"`` for a stable ~3 % of source documents, else ``"train"``."""
    bucket = int(hashlib.sha256(group.encode()).hexdigest()[:8], 16) % 100
    return "dev" if bucket < dev_percent else "train"


def _jsonl(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _doc_group(source: str, text: str) -> str:
    return f"{source}:{hashlib.sha256(text[:2000].encode()).hexdigest()[:16]}"


def halueval_qa(root: Path = DATASETS) -> Iterator[Pair]:
    for row in _jsonl(root / "halueval" / "dataset_halueval_qa.jsonl"):
        evidence = f"Question: {row['question']}\n{row['knowledge']}"
        group = _doc_group("halueval_qa", row["knowledge"])
        for answer, ok in ((row["right_answer"], 1), (row["hallucinated_answer"], 0)):
            claim = answer if len(answer.split()) >= 5 else f"{row['question']} {answer}."
            yield Pair(evidence, claim, ok, UNKNOWN, "halueval_qa", group)


def halueval_dialogue(root: Path = DATASETS) -> Iterator[Pair]:
    for row in _jsonl(root / "halueval" / "dataset_halueval_dialogue.jsonl"):
        group = _doc_group("halueval_dialogue", row["knowledge"])
        for answer, ok in ((row["right_response"], 1), (row["hallucinated_response"], 0)):
            yield Pair(row["knowledge"], answer, ok, UNKNOWN, "halueval_dialogue", group)


def halueval_summarization(root: Path = DATASETS) -> Iterator[Pair]:
    for row in _jsonl(root / "halueval" / "dataset_halueval_summarization.jsonl"):
        group = _doc_group("halueval_summ", row["document"])
        for summary, ok in ((row["right_summary"], 1), (row["hallucinated_summary"], 0)):
            yield Pair(row["document"], summary, ok, UNKNOWN, "halueval_summarization", group)


def summedits(root: Path = DATASETS, domains: tuple[str, ...] | None = None) -> Iterator[Pair]:
    """SummEdits; ``domains=None`` gives every domain not held out."""
    folder = root / "summedits" / "data" / "summedits"
    for path in sorted(folder.glob("summedits_*.json")):
        domain = path.stem.removeprefix("summedits_")
        wanted = domain in domains if domains is not None else domain not in HELD_OUT_SUMMEDITS
        if not wanted:
            continue
        for row in json.loads(path.read_text(encoding="utf-8")):
            label = int(row["label"])
            yield Pair(
                row["doc"],
                row["summary"],
                label,
                UNKNOWN,
                f"summedits_{domain}",
                _doc_group("summedits", row["doc"]),
            )


def _summacoz_positive(text: str) -> tuple[str, str] | None:
    try:
        article = text.split("<Article>", 1)[1].split("</Article>", 1)[0]
        claim = text.split("<Claim>", 1)[1].split("</Claim>", 1)[0]
    except IndexError:
        return None
    return article.strip(), claim.strip()


def summacoz(root: Path = DATASETS) -> Iterator[Pair]:
    base = root / "summacoz"
    for path in sorted((base / "benchmark" / "gpt-4-1106-preview").glob("*.jsonl")):
        for row in _jsonl(path):
            yield Pair(
                row["document"],
                row["claim"],
                0,
                UNKNOWN,
                "summacoz",
                _doc_group("summacoz", row["document"]),
            )
    for path in sorted((base / "data" / "positive").rglob("*")):
        if not path.is_file():
            continue
        parsed = _summacoz_positive(path.read_text(encoding="utf-8"))
        if parsed:
            article, claim = parsed
            yield Pair(article, claim, 1, UNKNOWN, "summacoz", _doc_group("summacoz", article))


def climate_fever(root: Path = DATASETS) -> Iterator[Pair]:
    labels = {"SUPPORTS": (1, 0), "REFUTES": (0, 1), "NOT_ENOUGH_INFO": (0, 0)}
    for row in _jsonl(root / "climate-fever" / "dataset" / "climate-fever.jsonl"):
        evidences = row["evidences"]
        if isinstance(evidences, str):
            evidences = ast.literal_eval(evidences)
        for evidence in evidences:
            entailed, contradicted = labels[evidence["evidence_label"]]
            yield Pair(
                f"{evidence['article']}: {evidence['evidence']}",
                row["claim"],
                entailed,
                contradicted,
                "climate_fever",
                f"climate:{row['claim_id']}",
            )


def begin(root: Path = DATASETS) -> Iterator[Pair]:
    for path in sorted((root / "begin").rglob("*.tsv")):
        with path.open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                label = (row.get("begin_label") or "").strip()
                if label not in ("Fully attributable", "Not fully attributable", "Generic"):
                    continue
                yield Pair(
                    row["knowledge"],
                    row["response"],
                    int(label == "Fully attributable"),
                    UNKNOWN,
                    "begin",
                    _doc_group("begin", row["knowledge"]),
                )


def wice(split: str, root: Path = DATASETS) -> Iterator[Pair]:
    """WiCE claims with their evidence (supported vs partially / not supported)."""
    path = root / "wice" / "data" / "entailment_retrieval" / "claim" / f"{split}.jsonl"
    for row in _jsonl(path):
        evidence = row["evidence"]
        if isinstance(evidence, str):
            evidence = ast.literal_eval(evidence)
        yield Pair(
            "\n".join(str(sentence) for sentence in evidence),
            row["claim"],
            int(row["label"] == "supported"),
            UNKNOWN,
            f"wice_{split}",
            f"wice:{row['meta']['id'] if isinstance(row['meta'], dict) else row['claim'][:40]}",
        )


def qags(root: Path = DATASETS) -> Iterator[Pair]:
    """QAGS summary sentences; a sentence is consistent when most of its 3 votes say yes."""
    for name in ("mturk_cnndm", "mturk_xsum"):
        for row in _jsonl(root / "qags" / "data" / f"{name}.jsonl"):
            for sentence in row["summary_sentences"]:
                votes = [r["response"] == "yes" for r in sentence["responses"]]
                yield Pair(
                    row["article"],
                    sentence["sentence"],
                    int(sum(votes) * 2 > len(votes)),
                    UNKNOWN,
                    f"qags_{name.removeprefix('mturk_')}",
                    _doc_group("qags", row["article"]),
                )


# How many pairs of each training source to use at scale 1 (None = all). HaluEval is the
# largest and the easiest (ChatGPT-written hallucinations): half of it keeps it from
# drowning out the human-labelled and minimal-edit data.
TRAINING_CAPS: dict[str, int | None] = {
    "halueval_qa": 10000,
    "halueval_dialogue": 10000,
    "halueval_summarization": 10000,
    "summedits": None,
    "summacoz": None,
    "climate_fever": None,
    "begin": None,
    "wice_dev": None,
}


def training_pairs(seed: int = 0, scale: float = 1.0) -> list[Pair]:
    """The natural training pairs (not held out), capped per source and shuffled."""
    loaders = {
        "halueval_qa": halueval_qa,
        "halueval_dialogue": halueval_dialogue,
        "halueval_summarization": halueval_summarization,
        "summedits": summedits,
        "summacoz": summacoz,
        "climate_fever": climate_fever,
        "begin": begin,
        "wice_dev": lambda: wice("dev"),
    }
    rng = random.Random(seed)
    out: list[Pair] = []
    for name, loader in loaders.items():
        rows = list(loader())
        rng.shuffle(rows)
        cap = TRAINING_CAPS[name]
        if cap is not None or scale != 1.0:
            rows = rows[: int((cap if cap is not None else len(rows)) * scale)]
        out.extend(rows)
    rng.shuffle(out)
    return out
