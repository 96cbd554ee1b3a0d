"""Write the minimal-edit probe set from the sample vault (never used for training).

    python -m benchmarks.make_probes [--per-kind 24] [--seed 7] [--out benchmarks/data/...]

Each probe is one vault section as evidence and a claim made from one of its sentences by one
edit of ``benchmarks.minimal_edits`` (or a faithful rewrite). The training recipe draws its
edits from the training data sets' evidence, so these probes measure how the verifier handles
edits of text it has never seen, in the vault's own register (policies, numbers, deadlines).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from audit_pipeline.verification.windows import evidence_sentences
from benchmarks.minimal_edits import EDIT_TYPES, make_edit, names

ROOT = Path(__file__).resolve().parents[1]
VAULT = ROOT / "data" / "sample-vault"
DEFAULT_OUT = Path(__file__).with_name("data") / "minimal_edit_probes.jsonl"


def _plain(markdown: str) -> str:
    text = re.sub(r"[*_`]+", "", markdown)
    text = re.sub(r"^\s*[-+]\s+", "", text, flags=re.MULTILINE)
    return re.sub(r"^\s*\|.*\|\s*$", "", text, flags=re.MULTILINE)  # tables: not prose


def sections(vault: Path = VAULT) -> list[tuple[str, str]]:
    """(document, section text with its heading) for every section with prose."""
    out = []
    for path in sorted(vault.glob("*.md")):
        parts = re.split(r"^(#{1,4} .*)$", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
        heading = ""
        for part in parts:
            if re.match(r"#{1,4} ", part):
                heading = part.lstrip("# ").strip()
                continue
            body = _plain(part).strip()
            if len(body.split()) >= 12:
                out.append((path.name, f"{heading}\n{body}"))
    return out


def probes(per_kind: int, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    candidates = [
        (document, text, sentence)
        for document, text in sections()
        for sentence in evidence_sentences([text.split("\n", 1)[1]])
        if 8 <= len(sentence.split()) <= 45
    ]
    rng.shuffle(candidates)
    pool = names(" ".join(text for _, text in sections()))
    out: list[dict[str, object]] = []
    for kind in EDIT_TYPES:
        made = 0
        for document, text, sentence in candidates:
            edit = make_edit(kind, sentence, rng, pool)
            if edit is None:
                continue
            out.append(
                {
                    "document": document,
                    "evidence": text,
                    "source_sentence": sentence,
                    "claim": edit.claim,
                    "kind": kind,
                    "entailed": edit.entailed,
                    "contradicted": edit.contradicted,
                }
            )
            made += 1
            if made == per_kind:
                break
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-kind", type=int, default=24)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    rows = probes(args.per_kind, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} probes to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
