"""Product-domain specifics benchmark: does the verifier catch a changed specific and pass a
faithful restatement of it?

    python -m benchmarks.specifics [--data DIR] [--json OUT] [--verifier local|llm|cascade]
                                   [--vault NAME ...]   # some vaults only, for a quick look

The data (``benchmarks/specifics_data.py``, committed under ``benchmarks/data/specifics``) is
four vaults of policy and manual documents and labelled answer claims: fabrications that change
one specific of a vault fact (a duration, frequency, range, number, amount, percentage, date,
table cell, vendor, auditor, place, identifier, or the polarity of an obligation) and
paraphrases that restate the fact in other words or units.

Everything between the claim and the verdict is the product, the way an audit runs it: each
vault is indexed for real (``scan_vault`` -> ``chunk_documents`` -> ``VaultIndex.sync`` in a
temporary folder), each claim is one answer with one claim whose evidence comes from the
evidence stage as the ``evidence`` asset calls it (``find_evidence``, which runs
``gather_evidence``: hybrid search of that vault), and the verdicts come from the configured
verifier (``build_verifier`` with default ``DetectionSettings``) through ``verify_claims``. A
claim is flagged when its label is one of ``HALLUCINATION_LABELS``.

Prints, per kind, the share flagged (recall for fabrications, false-alarm rate for
paraphrases), the overall recall and false-alarm rate beside the flag-everything baseline
(recall 1, false alarms 1), and claims per second of the verification step alone. "in
evidence" is the share of claims whose evidence passages contain the fact's value as the vault
states it: where it is low, retrieval, not the verifier, lost the fact.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit_pipeline.claims.audit_claims import audit_claim_id
from audit_pipeline.claims.claim import make_claim
from audit_pipeline.embedding import Embedder, SentenceTransformerEmbedder
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.records.claims import AnsweredTurn, AuditClaim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import HALLUCINATION_LABELS, Verdict
from audit_pipeline.runs.detection_batches import EvidenceWork, find_evidence
from audit_pipeline.vault.chunking import chunk_documents
from audit_pipeline.vault.documents import scan_vault
from audit_pipeline.verification.audit_verdicts import verify_claims
from audit_pipeline.verification.configured import build_verifier
from audit_pipeline.verification.detection_settings import DetectionSettings
from audit_pipeline.verification.verdict import Verifier
from benchmarks.specifics_data import CLAIMS_FILE, DEFAULT_OUT, FABRICATION_KINDS

FABRICATED = "fabricated"
PARAPHRASE = "paraphrase"


@dataclass(frozen=True)
class LabelledClaim:
    id: str
    vault: str
    text: str
    label: str
    kind: str
    vault_value: str


@dataclass(frozen=True)
class Outcome:
    claim: LabelledClaim
    verdict: Verdict
    in_evidence: bool

    @property
    def flagged(self) -> bool:
        return str(self.verdict.label) in HALLUCINATION_LABELS


def load_claims(data: Path) -> list[LabelledClaim]:
    claims = []
    with open(data / CLAIMS_FILE, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                claims.append(
                    LabelledClaim(
                        row["id"],
                        row["vault"],
                        row["claim"],
                        row["label"],
                        row["kind"],
                        row.get("vault_value", ""),
                    )
                )
    return claims


def index_vault(folder: Path, embedder: Embedder, root: Path) -> HybridRetriever:
    """The vault indexed as the ``vault_index`` asset does it, in ``root``."""
    index = VaultIndex(root / "vault.lance", embedder)
    index.sync(chunk_documents(scan_vault(folder).documents))
    return HybridRetriever(index)


def as_answers(claims: Sequence[LabelledClaim]) -> tuple[list[AuditClaim], list[AnsweredTurn]]:
    """Each labelled claim as one answer (prompt = its id, turn 1) holding one claim."""
    audit_claims, turns = [], []
    for item in claims:
        claim = make_claim(item.text, 0, len(item.text), "sentence")
        audit_claims.append(
            AuditClaim(audit_claim_id(item.id, 1, claim), item.id, 1, claim, "benchmark")
        )
        turns.append(AnsweredTurn(item.id, 1, item.text))
    return audit_claims, turns


def _holds(passages: Sequence[EvidencePassage], value: str) -> bool:
    needle = value.lower()
    return bool(needle) and any(needle in p.text.lower() for p in passages)


def run(
    data: Path, claims: Sequence[LabelledClaim], embedder: Embedder, verifier: Verifier
) -> tuple[list[Outcome], dict[str, float]]:
    """Index each vault, find every claim's evidence, verify; the verification step alone is
    timed (``seconds["verify"]``)."""
    top_k = DetectionSettings().evidence_top_k
    by_vault: dict[str, list[LabelledClaim]] = defaultdict(list)
    for item in claims:
        by_vault[item.vault].append(item)
    outcomes: list[Outcome] = []
    seconds: dict[str, float] = defaultdict(float)
    for vault, members in sorted(by_vault.items()):
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            retriever = index_vault(data / vault, embedder, Path(tmp))
            seconds["index"] += time.perf_counter() - started
            audit_claims, turns = as_answers(members)
            started = time.perf_counter()
            work = EvidenceWork(0, audit_claims, turns, {})
            evidence = find_evidence(work, retriever, embedder, top_k, None).evidence
            seconds["evidence"] += time.perf_counter() - started
        started = time.perf_counter()
        verdicts = verify_claims(audit_claims, evidence, verifier)
        seconds["verify"] += time.perf_counter() - started
        for item, claim, verdict in zip(members, audit_claims, verdicts, strict=True):
            passages = evidence.get(claim.claim_id, [])
            outcomes.append(Outcome(item, verdict, _holds(passages, item.vault_value)))
    return outcomes, dict(seconds)


def _share(outcomes: Sequence[Outcome]) -> float | None:
    return sum(o.flagged for o in outcomes) / len(outcomes) if outcomes else None


def _group(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    return {
        "n": len(outcomes),
        "flagged": sum(o.flagged for o in outcomes),
        "flagged_share": _share(outcomes),
        "in_evidence": sum(o.in_evidence for o in outcomes) / len(outcomes),
        "verdicts": dict(sorted(Counter(str(o.verdict.label) for o in outcomes).items())),
    }


def figures(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Recall on fabrications and false alarms on paraphrases, overall, per kind, per vault."""
    fabricated = [o for o in outcomes if o.claim.label == FABRICATED]
    faithful = [o for o in outcomes if o.claim.label == PARAPHRASE]
    recall, false_alarms = _share(fabricated), _share(faithful)
    kinds: dict[tuple[str, str], list[Outcome]] = defaultdict(list)
    vaults: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        kinds[(o.claim.label, o.claim.kind)].append(o)
        vaults[o.claim.vault].append(o)

    def order(key: tuple[str, str]) -> tuple[int, int, str]:
        label, kind = key
        rank = FABRICATION_KINDS.index(kind) if kind in FABRICATION_KINDS else 99
        return (label != FABRICATED, rank, kind)

    return {
        "overall": {
            "fabricated": len(fabricated),
            "paraphrases": len(faithful),
            "recall": recall,
            "false_alarm_rate": false_alarms,
            "balanced_accuracy": (
                (recall + 1 - false_alarms) / 2
                if recall is not None and false_alarms is not None
                else None
            ),
        },
        "flag_everything": {"recall": 1.0, "false_alarm_rate": 1.0, "balanced_accuracy": 0.5},
        "by_kind": [
            {"label": label, "kind": kind, **_group(kinds[(label, kind)])}
            for label, kind in sorted(kinds, key=order)
        ],
        "by_vault": {
            vault: {
                "recall": _share([o for o in members if o.claim.label == FABRICATED]),
                "false_alarm_rate": _share([o for o in members if o.claim.label == PARAPHRASE]),
            }
            for vault, members in sorted(vaults.items())
        },
    }


def _fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:5.3f}"


def print_report(result: dict[str, Any]) -> None:
    print(f"verifier {result['verifier']} on {result['claims']} claims from {result['data']}")
    print(f"{'label':11} {'kind':20} {'n':>4} {'flagged':>8} {'share':>6} {'in evid.':>8}")
    for row in result["by_kind"]:
        what = "recall" if row["label"] == FABRICATED else "false alarms"
        print(
            f"{row['label']:11} {row['kind']:20} {row['n']:4d} {row['flagged']:8d} "
            f"{_fmt(row['flagged_share'])}  {row['in_evidence']:6.3f}   {what}"
        )
    overall = result["overall"]
    print(
        f"overall: recall {_fmt(overall['recall'])} on {overall['fabricated']} fabrications, "
        f"false alarms {_fmt(overall['false_alarm_rate'])} on {overall['paraphrases']} "
        f"paraphrases, balanced accuracy {_fmt(overall['balanced_accuracy'])}"
    )
    print("flag everything: recall 1.000, false alarms 1.000, balanced accuracy 0.500")
    for vault, figs in result["by_vault"].items():
        print(
            f"  {vault:26} recall {_fmt(figs['recall'])}  "
            f"false alarms {_fmt(figs['false_alarm_rate'])}"
        )
    seconds = result["seconds"]
    print(
        f"verification {result['claims_per_s']:.1f} claims/s ({seconds['verify']:.1f} s); "
        f"indexing {seconds['index']:.1f} s, evidence {seconds['evidence']:.1f} s"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--verifier", choices=("local", "llm", "cascade"), default="local")
    parser.add_argument("--vault", action="append", default=None, help="only these vaults")
    args = parser.parse_args(argv)

    claims = [c for c in load_claims(args.data) if not args.vault or c.vault in args.vault]
    if not claims:
        sys.exit(f"no claims in {args.data / CLAIMS_FILE}")
    embedder = SentenceTransformerEmbedder()
    verifier = build_verifier(DetectionSettings(verifier=args.verifier), embedder)
    outcomes, seconds = run(args.data, claims, embedder, verifier)
    result = {
        "data": str(args.data),
        "verifier": f"{verifier.name} {verifier.version}",
        "claims": len(outcomes),
        **figures(outcomes),
        "claims_per_s": len(outcomes) / seconds["verify"] if seconds["verify"] else None,
        "seconds": seconds,
    }
    print_report(result)
    if args.json:
        result["verdicts"] = [
            {
                "id": o.claim.id,
                "label": o.claim.label,
                "kind": o.claim.kind,
                "verdict": str(o.verdict.label),
                "probability": round(o.verdict.probability, 4),
                "in_evidence": o.in_evidence,
            }
            for o in outcomes
        ]
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
