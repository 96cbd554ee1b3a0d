"""Fitting the local model (scikit-learn), with every threshold chosen inside the training data.

Used by ``benchmarks/train_verifier.py`` to produce the shipped ``local_model.json`` and by
``benchmarks/ragtruth.py --cv`` to refit per fold. Thresholds and the response model's
regularisation are chosen on out-of-fold predictions *within* the data given here, so a
cross-validated figure computed with this function on held-out folds is honest (nested).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit_pipeline.verification.aggregate import RESPONSE_FEATURE_NAMES, response_features
from audit_pipeline.verification.features import FEATURE_NAMES
from audit_pipeline.verification.scorer import LinearModel, LocalModel, Thresholds

CLAIM_C = 0.1
RESPONSE_CS = (0.1, 0.3, 1.0)
INNER_FOLDS = 4


@dataclass(frozen=True)
class TrainingSet:
    """Claim features and labels, which response each claim belongs to, response labels.

    ``groups`` (one per response) keeps responses about the same source in the same fold.
    """

    claim_features: np.ndarray
    claim_labels: np.ndarray
    claim_response: np.ndarray
    response_labels: np.ndarray
    groups: np.ndarray

    def responses(self) -> np.ndarray:
        return np.arange(len(self.response_labels))

    def response_matrix(self) -> np.ndarray:
        return np.stack(
            [
                response_features(self.claim_features[self.claim_response == i])
                for i in self.responses()
            ]
        )


def _logistic(c: float, seed: int) -> Any:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(
        StandardScaler(), LogisticRegression(C=c, max_iter=5000, random_state=seed)
    )


def _linear(pipeline: Any) -> LinearModel:
    scaler, regression = pipeline[0], pipeline[-1]
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    return LinearModel(
        mean=tuple(float(v) for v in scaler.mean_),
        scale=tuple(float(v) for v in scale),
        coef=tuple(float(v) for v in regression.coef_[0]),
        intercept=float(regression.intercept_[0]),
    )


def _fit(x: np.ndarray, y: np.ndarray, c: float, seed: int) -> Any:
    if len(np.unique(y)) < 2:
        raise ValueError("training data must contain both hallucinated and clean examples")
    return _logistic(c, seed).fit(x, y)


def _folds(groups: np.ndarray, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import GroupKFold

    splits = min(INNER_FOLDS, len(np.unique(groups)))
    splitter = GroupKFold(n_splits=splits, shuffle=True, random_state=seed)
    return list(splitter.split(np.zeros(len(groups)), groups=groups))


def decision_scores(predicted: np.ndarray, gold: np.ndarray) -> tuple[float, float]:
    """(F1, balanced accuracy) of binary predictions; positive = hallucinated."""
    tp = float(np.sum((predicted == 1) & (gold == 1)))
    fp = float(np.sum((predicted == 1) & (gold == 0)))
    fn = float(np.sum((predicted == 0) & (gold == 1)))
    tn = float(np.sum((predicted == 0) & (gold == 0)))
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    tpr = tp / (tp + fn) if tp + fn else 0.0
    tnr = tn / (tn + fp) if tn + fp else 0.0
    return f1, (tpr + tnr) / 2


def best_threshold(scores: np.ndarray, gold: np.ndarray) -> float:
    """The cut on a hallucination score that maximises F1 + balanced accuracy.

    Both figures are what the audit is judged on; F1 alone drifts towards flagging
    everything when positives are common, balanced accuracy alone ignores precision.
    """
    best_value, best_cut = -1.0, 0.5
    for cut in np.unique(scores):
        f1, balanced = decision_scores((scores >= cut).astype(int), gold)
        if f1 + balanced > best_value:
            best_value, best_cut = f1 + balanced, float(cut)
    return best_cut


def _best_f1_cut(scores: np.ndarray, gold: np.ndarray) -> float:
    best_value, best_cut = -1.0, 0.5
    for cut in np.unique(scores):
        f1, _ = decision_scores((scores >= cut).astype(int), gold)
        if f1 > best_value:
            best_value, best_cut = f1, float(cut)
    return best_cut


def _auc(scores: np.ndarray, gold: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(gold, scores)) if len(np.unique(gold)) == 2 else 0.5


def fit_local_model(data: TrainingSet, seed: int = 0, version: str = "local") -> LocalModel:
    """Claim model, response model and all thresholds from one training set."""
    x, y, owner = data.claim_features, data.claim_labels, data.claim_response
    responses, labels, groups = data.responses(), data.response_labels, data.groups
    folds = _folds(groups, seed)

    # Out-of-fold claim risks: the any-claim threshold is chosen on claims not fitted on.
    claim_oof = np.zeros(len(y))
    for fit_rows, held_rows in folds:
        fit_mask, held_mask = np.isin(owner, fit_rows), np.isin(owner, held_rows)
        model = _fit(x[fit_mask], y[fit_mask], CLAIM_C, seed)
        claim_oof[held_mask] = model.predict_proba(x[held_mask])[:, 1]
    riskiest = np.zeros(len(responses))
    np.maximum.at(riskiest, owner, claim_oof)
    claim_cut = best_threshold(riskiest, labels)
    # Inside an answer already judged hallucinated, which claims to point at: the cut that
    # best separates hallucinated from clean claims of the hallucinated training answers.
    in_positive = labels[owner] == 1
    span_cut = _best_f1_cut(claim_oof[in_positive], y[in_positive])

    # Response model: regularisation and decision threshold from out-of-fold predictions.
    matrix = data.response_matrix()
    best_auc, best_c, best_oof = -1.0, RESPONSE_CS[0], np.zeros(len(responses))
    for c in RESPONSE_CS:
        oof = np.zeros(len(responses))
        for fit_rows, held_rows in folds:
            model = _fit(matrix[fit_rows], labels[fit_rows], c, seed)
            oof[held_rows] = model.predict_proba(matrix[held_rows])[:, 1]
        auc = _auc(oof, labels)
        if auc > best_auc:
            best_auc, best_c, best_oof = auc, c, oof
    response_cut = best_threshold(best_oof, labels)

    claim_model = _linear(_fit(x, y, CLAIM_C, seed))
    response_model = _linear(_fit(matrix, labels, best_c, seed))
    return LocalModel(
        version=version,
        feature_names=FEATURE_NAMES,
        response_feature_names=RESPONSE_FEATURE_NAMES,
        claim=claim_model,
        response=response_model,
        thresholds=Thresholds(
            unsupported=round(1.0 - claim_cut, 6),
            weak=round(1.0 - claim_cut / 2, 6),
            response=round(response_cut, 6),
            span=round(1.0 - span_cut, 6),
        ),
        training={
            "claims": len(y),
            "hallucinated_claims": int(y.sum()),
            "responses": len(labels),
            "hallucinated_responses": int(labels.sum()),
            "claim_C": CLAIM_C,
            "response_C": best_c,
            "inner_oof_response_auc": round(best_auc, 4),
            "inner_oof_claim_auc": round(_auc(claim_oof, y), 4),
            "seed": seed,
        },
    )


def subset(data: TrainingSet, responses: Sequence[int]) -> TrainingSet:
    """The training set restricted to some responses (claims renumbered to match)."""
    chosen = np.asarray(responses)
    remap = {int(old): new for new, old in enumerate(chosen)}
    mask = np.isin(data.claim_response, chosen)
    return TrainingSet(
        claim_features=data.claim_features[mask],
        claim_labels=data.claim_labels[mask],
        claim_response=np.array([remap[int(r)] for r in data.claim_response[mask]], dtype=int),
        response_labels=data.response_labels[chosen],
        groups=data.groups[chosen],
    )
