"""Meaning benchmark (issue 31): does the verifier catch an answer that gets a policy's meaning
wrong, and pass one that restates it faithfully, on vaults nobody here wrote rules for?

    python -m benchmarks.meaning [--json OUT] [--split dev|test|all] [--domain NAME ...]
                                 [--data DIR] [--verifier local|llm|cascade]

The data (``benchmarks/meaning_data.py``, under ``benchmarks/data/meaning``) is eight small
policy vaults in eight domains and 642 hand-written claims: fabrications of ten meaning-level
types (a condition dropped or inverted, a comparator or direction changed, a quantifier or
scope changed, an obligation changed, the responsible party swapped, a one-case rule stated in
general, the exception stated as the rule, an added fact, a non-equivalent unit) and faithful
restatements of twelve kinds. Five domains are for development, three are held out for test
(``meaning_data.SPLIT``, committed before any rule): rules come only from development failures
and the test domains are scored once at the end.

Everything between the claim and the verdict is the product, exactly as the specifics
benchmark runs it (``benchmarks.specifics.run``): each vault is indexed through
``VaultIndex.sync``, each claim is one answer holding one claim, its evidence comes from the
evidence stage (``find_evidence``) and its verdict from ``build_verifier(DetectionSettings())``
through ``verify_claims``. A claim is flagged when its label is one of
``HALLUCINATION_LABELS``.

Prints, for each split, the recall on fabrications and the false-alarm rate on faithful claims
beside flag-everything (recall 1, false alarms 1, balanced accuracy 0.5), per type, per domain
and per kind of support (contradicted / unsupported), and claims per second of the
verification. "in evid." is the share of claims whose evidence passages contain the claim's
anchor (the span of the vault it restates or changes): where it is low, retrieval lost the
passage before the verifier saw it. ``--json OUT`` writes ``{"dev": {...}, "test": {"recall",
"false_alarm_rate", "balanced_accuracy", "per_type", "per_domain", "per_support", ...}, ...}``
and every claim's verdict.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks.meaning_data import (
    DEFAULT_DATA,
    DEV,
    FABRICATED,
    FAITHFUL,
    SPLIT,
    SUPPORTS,
    TEST,
    TYPES,
    VAULTS,
    Row,
    load_claims,
)

FLAG_EVERYTHING = {"recall": 1.0, "false_alarm_rate": 1.0, "balanced_accuracy": 0.5}
STEPS = ("index", "evidence", "verify")  # the timed steps of ``benchmarks.specifics.run``


@dataclass(frozen=True)
class Scored:
    """One claim and what the verifier made of it."""

    id: str
    domain: str
    split: str
    type: str
    label: str
    support: str
    verdict: str
    probability: float
    decided_by: str  # the stage that set the label: where a failure is to be read
    flagged: bool
    in_evidence: bool


def _share(items: Sequence[Scored]) -> float | None:
    return sum(s.flagged for s in items) / len(items) if items else None


def _balanced(recall: float | None, false_alarms: float | None) -> float | None:
    if recall is None or false_alarms is None:
        return None
    return (recall + 1 - false_alarms) / 2


def _rates(items: Sequence[Scored]) -> dict[str, Any]:
    fabricated = [s for s in items if s.label == FABRICATED]
    faithful = [s for s in items if s.label == FAITHFUL]
    recall, false_alarms = _share(fabricated), _share(faithful)
    return {
        "fabricated": len(fabricated),
        "faithful": len(faithful),
        "recall": recall,
        "false_alarm_rate": false_alarms,
        "balanced_accuracy": _balanced(recall, false_alarms),
    }


def _group(items: Sequence[Scored]) -> dict[str, Any]:
    return {
        "label": items[0].label,
        "n": len(items),
        "flagged": sum(s.flagged for s in items),
        "share": _share(items),
        "in_evidence": sum(s.in_evidence for s in items) / len(items),
        "verdicts": dict(sorted(Counter(s.verdict for s in items).items())),
    }


def figures(scored: Sequence[Scored]) -> dict[str, Any]:
    """Recall on fabrications and false alarms on faithful claims: overall, per type (the
    share flagged: recall for a fabrication type, false alarms for a faithful one), per domain
    and per kind of support, beside flag-everything."""
    types: dict[str, list[Scored]] = defaultdict(list)
    domains: dict[str, list[Scored]] = defaultdict(list)
    for s in scored:
        types[s.type].append(s)
        domains[s.domain].append(s)
    order = {kind: i for i, kind in enumerate(TYPES)}
    return {
        "claims": len(scored),
        **_rates(scored),
        "flag_everything": FLAG_EVERYTHING,
        "per_type": {
            kind: _group(types[kind]) for kind in sorted(types, key=lambda k: order.get(k, 99))
        },
        "per_domain": {domain: _rates(domains[domain]) for domain in sorted(domains)},
        "per_support": {
            support: {
                "n": len(members),
                "recall": _share(members),
            }
            for support in SUPPORTS
            if (members := [s for s in scored if s.label == FABRICATED and s.support == support])
        },
    }


def by_split(scored: Iterable[Scored]) -> dict[str, dict[str, Any]]:
    """``figures`` for each split present, dev first."""
    groups: dict[str, list[Scored]] = defaultdict(list)
    for s in scored:
        groups[s.split].append(s)
    return {split: figures(groups[split]) for split in (DEV, TEST) if groups[split]}


def measure(
    data: Path, rows: Sequence[Row], verifier_kind: str = "local"
) -> tuple[list[Scored], dict[str, float], str]:
    """Index each vault, find every claim's evidence and verify it through the product (the
    specifics benchmark's ``run``); the models load here, not at import."""
    from audit_pipeline.embedding import SentenceTransformerEmbedder
    from audit_pipeline.verification.configured import build_verifier
    from audit_pipeline.verification.detection_settings import DetectionSettings
    from benchmarks.specifics import LabelledClaim, run

    claims = [
        LabelledClaim(r["id"], r["domain"], r["claim"], r["label"], r["type"], r["anchor"])
        for r in rows
    ]
    embedder = SentenceTransformerEmbedder()
    verifier = build_verifier(DetectionSettings(verifier=verifier_kind), embedder)
    outcomes, seconds = run(data / VAULTS, claims, embedder, verifier)
    by_id = {r["id"]: r for r in rows}
    scored = []
    for outcome in outcomes:
        row = by_id[outcome.claim.id]
        scored.append(
            Scored(
                id=row["id"],
                domain=row["domain"],
                split=row["split"],
                type=row["type"],
                label=row["label"],
                support=row["support"],
                verdict=str(outcome.verdict.label),
                probability=round(outcome.verdict.probability, 4),
                decided_by=outcome.verdict.decided_by,
                flagged=outcome.flagged,
                in_evidence=outcome.in_evidence,
            )
        )
    return scored, seconds, f"{verifier.name} {verifier.version}"


def _fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:5.3f}"


def print_report(result: dict[str, Any]) -> None:
    print(f"verifier {result['verifier']} on {result['claims']} claims from {result['data']}")
    for split in (DEV, TEST):
        if split not in result:
            continue
        figs = result[split]
        domains = ", ".join(figs["per_domain"])
        print(f"\n== {split} ({domains}): {figs['claims']} claims")
        print(f"{'type':22} {'label':10} {'n':>4} {'flagged':>8} {'share':>6} {'in evid.':>8}")
        for kind, row in figs["per_type"].items():
            what = "recall" if row["label"] == FABRICATED else "false alarms"
            print(
                f"{kind:22} {row['label']:10} {row['n']:4d} {row['flagged']:8d} "
                f"{_fmt(row['share'])}  {row['in_evidence']:6.3f}   {what}"
            )
        print(
            f"overall: recall {_fmt(figs['recall'])} on {figs['fabricated']} fabrications, "
            f"false alarms {_fmt(figs['false_alarm_rate'])} on {figs['faithful']} faithful "
            f"claims, balanced accuracy {_fmt(figs['balanced_accuracy'])}"
        )
        print("flag everything: recall 1.000, false alarms 1.000, balanced accuracy 0.500")
        for support, row in figs["per_support"].items():
            print(f"  {support:14} fabrications: recall {_fmt(row['recall'])} (n={row['n']})")
        for domain, row in figs["per_domain"].items():
            print(
                f"  {domain:18} recall {_fmt(row['recall'])}  "
                f"false alarms {_fmt(row['false_alarm_rate'])}  "
                f"balanced accuracy {_fmt(row['balanced_accuracy'])}"
            )
    steps = ", ".join(f"{step} {result['seconds'][step]:.1f} s" for step in STEPS)
    print(f"\nverification {result['claims_per_s']:.1f} claims/s; {steps}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--split", choices=(DEV, TEST, "all"), default="all")
    parser.add_argument("--domain", action="append", default=None, choices=sorted(SPLIT))
    parser.add_argument("--verifier", choices=("local", "llm", "cascade"), default="local")
    args = parser.parse_args(argv)

    rows = [
        r
        for r in load_claims(args.data)
        if args.split in ("all", r["split"]) and (not args.domain or r["domain"] in args.domain)
    ]
    if not rows:
        sys.exit(f"no claims for split {args.split} and domains {args.domain} in {args.data}")
    scored, seconds, verifier = measure(args.data, rows, args.verifier)
    result: dict[str, Any] = {
        "data": str(args.data),
        "verifier": verifier,
        "split": args.split,
        "claims": len(scored),
        **by_split(scored),
        "claims_per_s": len(scored) / seconds["verify"] if seconds["verify"] else None,
        "seconds": seconds,
    }
    print_report(result)
    if args.json:
        result["verdicts"] = [asdict(s) for s in scored]
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
