"""How fast the verifier reads claims, on the two kinds of answers an audit meets.

    python -m benchmarks.verifier_speed [--responses 120] [--vault-claims N] [--json OUT]
                                        [--profile FILE]

- ``claims_per_s``: RAGTruth-style answers (the first ``--responses`` of RAGTruth dev: long
  news and data sources, each answer's claims against its own source, ranked as logged
  context), the default chain over each answer as an audit calls it;
- ``vault_claims_per_s``: vault-style claims (the specifics benchmark's answers over its four
  vaults, each claim with the evidence the audit's evidence stage finds for it).

Only the verification is timed (``VerifierChain.verify_answers``): claim extraction, evidence
ranking and model loading are done before the clock starts, and the models are warmed up on
one answer first. ``--profile FILE`` writes a cProfile of the timed part (read it with
``python -m pstats FILE``), to see where the time goes. Run it on an idle machine: two cores
shared with another job halve the figures.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from audit_pipeline.embedding import MemoEmbedder, SentenceTransformerEmbedder
from audit_pipeline.records.claims import AuditClaim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.runs.detection_batches import EvidenceWork, find_evidence
from audit_pipeline.verification import Answer, VerifierChain
from audit_pipeline.verification.configured import local_chain
from audit_pipeline.verification.detection_settings import DetectionSettings
from benchmarks import ragtruth, specifics


def _timed(
    chain: VerifierChain, answers: Sequence[Answer], profile: cProfile.Profile | None
) -> float:
    """Seconds to verify ``answers`` one per call, as an audit verifies them."""
    chain.verify_answers(answers[:1])  # loads the entailment model and spaCy
    if profile is not None:
        profile.enable()
    started = time.perf_counter()
    for answer in answers:
        chain.verify_answers([answer])
    seconds = time.perf_counter() - started
    if profile is not None:
        profile.disable()
    return seconds


def ragtruth_answers(embedder: MemoEmbedder, responses: int) -> list[Answer]:
    records = ragtruth.load_records(ragtruth.DEFAULT_DATA)[:responses]
    prepared = ragtruth.prepare(records, embedder, ragtruth.TOP_K, align=False)
    return [Answer.of(item.claims, item.evidence) for item in prepared if item.claims]


def vault_answers(embedder: MemoEmbedder, limit: int = 0) -> list[Answer]:
    """Each labelled claim of the specifics benchmark (the first ``limit``: 0 for all) with
    the evidence the audit finds."""
    claims = specifics.load_claims(specifics.DEFAULT_OUT)
    claims = claims[:limit] if limit else claims
    top_k = DetectionSettings().evidence_top_k
    answers: list[Answer] = []
    by_vault: dict[str, list[specifics.LabelledClaim]] = {}
    for item in claims:
        by_vault.setdefault(item.vault, []).append(item)
    for vault, members in sorted(by_vault.items()):
        with tempfile.TemporaryDirectory() as tmp:
            retriever = specifics.index_vault(specifics.DEFAULT_OUT / vault, embedder, Path(tmp))
            audit_claims, turns = specifics.as_answers(members)
            work = EvidenceWork(0, audit_claims, turns, {})
            found = find_evidence(work, retriever, embedder, top_k, None).evidence
        answers.extend(_answer(claim, found.get(claim.claim_id, [])) for claim in audit_claims)
    return answers


def _answer(claim: AuditClaim, evidence: list[EvidencePassage]) -> Answer:
    return Answer.of([claim.claim], [evidence], (claim.prompt_id, claim.turn))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--responses", type=int, default=120, help="RAGTruth answers")
    parser.add_argument("--vault-claims", type=int, default=0, help="0: all 826")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--profile", type=Path, default=None)
    args = parser.parse_args(argv)
    embedder = MemoEmbedder(SentenceTransformerEmbedder())
    profile = cProfile.Profile() if args.profile else None
    chain = local_chain(embedder)

    news = ragtruth_answers(embedder, args.responses)
    news_claims = sum(len(a.claims) for a in news)
    news_seconds = _timed(chain, news, profile)
    vault = vault_answers(embedder, args.vault_claims)
    vault_claims = sum(len(a.claims) for a in vault)
    vault_seconds = _timed(chain, vault, profile)

    result: dict[str, Any] = {
        "chain": chain.version,
        "claims_per_s": round(news_claims / news_seconds, 2),
        "vault_claims_per_s": round(vault_claims / vault_seconds, 2),
        "ragtruth": {"answers": len(news), "claims": news_claims, "seconds": news_seconds},
        "vault": {"answers": len(vault), "claims": vault_claims, "seconds": vault_seconds},
    }
    print(
        f"RAGTruth-style: {news_claims} claims in {news_seconds:.1f} s = "
        f"{result['claims_per_s']} claims/s; vault-style: {vault_claims} claims in "
        f"{vault_seconds:.1f} s = {result['vault_claims_per_s']} claims/s"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if profile is not None and args.profile:
        profile.dump_stats(str(args.profile))
    return 0


if __name__ == "__main__":
    sys.exit(main())
