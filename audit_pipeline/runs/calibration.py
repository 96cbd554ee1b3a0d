"""``audit-pipeline calibrate``'s work: the marked answers' features (computed once from the
warehouse, then kept), the refit and its cross-validation (``verification/calibration.py``),
and the versioned model it writes next to the warehouse.

Features. The learned model reads each claim's alignment features and, for its answer-level
decision, those of every claim of the answer; the labelling also needs what the checks before
it decided. None of it is stored with a verdict, so for each marked answer it is computed the
way the verifier computes it (the configured chain's stages up to the model, and the alignment
analysis the model reads), from the audit's stored claims and evidence, offline, and kept in
``mark_features`` under a key of the code and models that made it: a second calibration reads
it back.

The result. Every refit is written as ``<storage>/verifier/<version>.json`` (the model file
format the ``model`` stage loads); when it is better on held-out marks it is also written as
``calibrated.json`` beside it, which the configuration then uses (``detection.calibrated``,
``AuditConfig``): a new model file is a new chain identity, so no old verdict is carried over.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from audit_pipeline.config import AuditConfig
from audit_pipeline.embedding import Embedder
from audit_pipeline.records.marks import Mark
from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.batch import Answer
from audit_pipeline.verification.calibration import (
    CalibrationError,
    CrossValidated,
    MarkedAnswer,
    cross_validate,
    refit,
)
from audit_pipeline.verification.configured import build_verifier
from audit_pipeline.verification.digests import project_code_digest
from audit_pipeline.verification.entailment import entailment_files
from audit_pipeline.verification.features import alignment_analysis
from audit_pipeline.verification.scorer import LocalModel
from audit_pipeline.verification.stages.chain import VerifierChain, chain_digest
from audit_pipeline.verification.stages.model import LearnedModel, ReadingInput
from audit_pipeline.warehouse.mark_tables import live_marks_all, stored_features, write_features
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline.warehouse.verdict_tables import load_claims, load_evidence

AnswerKey = tuple[str, str, int]  # audit, prompt, turn
FEATURES_VERSION = "1"


@dataclass(frozen=True)
class Calibration:
    """What ``calibrate`` did: the held-out figures, the model written, whether it is used."""

    cross_validated: CrossValidated
    base: LocalModel
    model: LocalModel
    path: Path
    adopted: Path | None
    prior_strength: float
    computed: int  # answers whose features were computed now (the others were stored)
    marks: int


def _chain_parts(chain: VerifierChain) -> tuple[LearnedModel, VerifierChain]:
    stages = list(chain.stages)
    index = next((i for i, s in enumerate(stages) if isinstance(s, LearnedModel)), None)
    if index is None:
        raise CalibrationError("the configured verifier chain has no learned model to calibrate")
    model = stages[index]
    assert isinstance(model, LearnedModel)
    return model, VerifierChain(stages[:index], chain.embedder)


def features_key(model: LearnedModel, before: VerifierChain) -> str:
    """What the stored features depend on: the features the model reads, the entailment
    model, the project's code and the stages before the model."""
    payload = [
        FEATURES_VERSION,
        list(model.model.feature_names),
        entailment_files(),
        project_code_digest(),
        chain_digest(before.stages, with_code=False),
    ]
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def _compute(
    store: Warehouse, keys: list[AnswerKey], before: VerifierChain
) -> dict[AnswerKey, list[dict[str, Any]]]:
    by_audit: dict[str, list[AnswerKey]] = defaultdict(list)
    for key in keys:
        by_audit[key[0]].append(key)
    answers: list[Answer] = []
    claim_ids: list[list[str]] = []
    order: list[AnswerKey] = []
    for audit_id, wanted in sorted(by_audit.items()):
        with store.reading():
            claims = load_claims(store, audit_id)
            evidence = load_evidence(store, audit_id)
        for key in wanted:
            own = [c for c in claims if (c.prompt_id, c.turn) == key[1:]]
            if not own:
                continue
            answers.append(
                Answer.of([c.claim for c in own], [evidence.get(c.claim_id, []) for c in own])
            )
            claim_ids.append([c.claim_id for c in own])
            order.append(key)
    if not answers:
        return {}
    batch = before.batch(answers)
    verdicts = [v for answer in before.verify_batch(batch) for v in answer.verdicts]
    alignments = batch.analysis(alignment_analysis)
    computed: dict[AnswerKey, list[dict[str, Any]]] = {}
    for number, key in enumerate(order):
        start = batch.starts[number]
        rows = []
        for offset, claim_id in enumerate(claim_ids[number]):
            verdict, alignment = verdicts[start + offset], alignments[start + offset]
            decided = verdict.label if verdict.decided_by != "none" else None
            reading = ReadingInput.of(alignment, decided)
            rows.append(
                {
                    "claim_id": claim_id,
                    "vector": [float(v) for v in alignment.vector()],
                    "decided": None if decided is None else str(decided),
                    "has_evidence": reading.has_evidence,
                    "nli_contradicted": reading.nli_contradicted,
                    "nli_unsupported": reading.nli_unsupported,
                    "verbatim": reading.verbatim,
                }
            )
        computed[key] = rows
    return computed


def _marked_answer(
    key: AnswerKey, rows: list[dict[str, Any]], marks: dict[str, bool]
) -> MarkedAnswer:
    inputs = tuple(
        ReadingInput(
            Label(r["decided"]) if r["decided"] else None,
            bool(r["has_evidence"]),
            float(r["nli_contradicted"]),
            float(r["nli_unsupported"]),
            bool(r["verbatim"]),
        )
        for r in rows
    )
    index = {r["claim_id"]: i for i, r in enumerate(rows)}
    marked = {index[claim]: truly for claim, truly in marks.items() if claim in index}
    return MarkedAnswer(
        key, np.array([r["vector"] for r in rows], dtype=np.float64), inputs, marked
    )


def marked_answers(
    store: Warehouse, model: LearnedModel, before: VerifierChain
) -> tuple[list[MarkedAnswer], int]:
    """Every answer holding a live mark on a judged claim, with its features (computed now
    where none are stored); and how many answers were computed now."""
    marks: list[Mark] = [m for m in live_marks_all(store) if m.label_given is not None]
    by_answer: dict[AnswerKey, dict[str, bool]] = defaultdict(dict)
    for mark in marks:
        truly = str(mark.label_marked) != "supported"
        by_answer[(mark.audit_id, mark.prompt_id, mark.turn)][mark.claim_id] = truly
    key = features_key(model, before)
    stored = stored_features(store, by_answer, key)
    missing = [k for k in by_answer if k not in stored]
    computed = _compute(store, missing, before) if missing else {}
    write_features(store, computed, key)
    rows = {**stored, **computed}
    answers = [_marked_answer(k, rows[k], by_answer[k]) for k in sorted(by_answer) if k in rows]
    return [a for a in answers if a.marked], len(computed)


def verifier_dir(config: AuditConfig) -> Path:
    return config.calibrated_model_path.parent


def _version(base: LocalModel, folder: Path) -> str:
    stem = base.version.split("+cal")[0]
    taken = len(list(folder.glob(f"{stem}+cal*.json")))
    return f"{stem}+cal{taken + 1}"


def calibrate(
    config: AuditConfig,
    store: Warehouse,
    embedder: Embedder | None,
    *,
    folds: int = 5,
    seed: int = 0,
) -> Calibration:
    """Refit the configured chain's learned model on the live marks, cross-validate it on
    them, write it, and adopt it when better on held-out marks."""
    chain = build_verifier(config.detection, embedder, reader=config.reader_settings)
    stage, before = _chain_parts(chain)
    answers, computed = marked_answers(store, stage, before)
    base = stage.model
    checked = cross_validate(base, stage.params, answers, folds, seed)
    fitted, strength = refit(base, stage.params, answers)
    folder = verifier_dir(config)
    folder.mkdir(parents=True, exist_ok=True)
    version = _version(base, folder)
    marks = sum(len(a.marked) for a in answers)
    training = {
        "calibrated_from": base.version,
        "calibrated_from_digest": base.digest(),
        "marks": marks,
        "answers": len(answers),
        "prior_strength": strength,
        "cross_validated": {
            "folds": checked.folds,
            "grouped_by": "answer",
            "before": checked.before.to_dict(),
            "after": checked.after.to_dict(),
            "better": checked.better,
        },
        "date": datetime.now(UTC).date().isoformat(),
        "command": f"audit-pipeline calibrate --folds {folds} --seed {seed}",
    }
    model = replace(fitted, version=version, training=training)
    path = folder / f"{version}.json"
    model.save(path)
    adopted = None
    if checked.better:
        adopted = config.calibrated_model_path
        model.save(adopted)
    return Calibration(checked, base, model, path, adopted, strength, computed, marks)
