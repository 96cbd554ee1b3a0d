"""Refitting the learned model on analysts' marks (``audit-pipeline calibrate``).

What is fitted, and on what. The shipped model was fitted on RAGTruth dev, which lives outside
the package (``../shared``): a user's machine has the model, not its training data. So the
refit is **the shipped model as a prior, the marks as data**: the claim model's coefficients
are the maximum a posteriori estimate under a Gaussian prior centred on the configured model's
coefficients (in its own standardised feature space), ``argmin sum(log loss on the marked
claims) + lam/2 * |w - w0|^2``; the prior strength ``lam`` is chosen by grouped
cross-validation inside the marks (few marks: the prior holds the coefficients near the
shipped ones; many: the marks move them). Then the cut points: the claim cut
(``thresholds.unsupported``, with ``weak`` halfway to 1 and ``span`` shifted alike, as
training sets them) and the answer cut (``thresholds.response``) are chosen on the marks by
replaying the stage's own labelling (``stages/model.read_answer``: the answer model, the
reconciliation of claim labels with it), maximising F1 + balanced accuracy of the flags, the
figure training maximises. The answer model is refit the same way (prior at the configured
one) on the answers the marks settle: hallucinated when a marked claim is, grounded when
every claim is marked supported. Claims a check decided are not fitted on (the model cannot
change them) but are counted in every figure, so the figures are the chain's on the marked
claims.

How it is judged. Grouped K-fold cross-validation over the marked answers (all claims of an
answer in one fold): each fold refits on the others and labels its held-out marks with the
configured model ("before") and the refit ("after"). The refit is *better* when its held-out
F1 + balanced accuracy is higher and its precision no lower.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from audit_pipeline.records.verdicts import HALLUCINATION_LABELS
from audit_pipeline.verification.aggregate import response_features
from audit_pipeline.verification.scorer import LinearModel, LocalModel, Thresholds
from audit_pipeline.verification.stages.model import ModelParams, ReadingInput, read_answer
from audit_pipeline.verification.training import decision_scores

LAMBDAS = (1.0, 10.0, 100.0)
MIN_MARKS = 20
Z = 1.959964


class CalibrationError(ValueError):
    """Too few marks, or marks of one kind only."""


@dataclass(frozen=True)
class MarkedAnswer:
    """One answer with marked claims: every claim's features and reading inputs (the answer
    model reads them all) and, by claim index, whether the analyst says it is hallucinated."""

    key: tuple[str, str, int]  # audit, prompt, turn
    vectors: np.ndarray
    inputs: tuple[ReadingInput, ...]
    marked: dict[int, bool]


@dataclass(frozen=True)
class Figures:
    """Flag quality on marked claims: positive = hallucinated (unsupported or contradicted)."""

    marks: int
    true_positives: int
    false_positives: int
    false_negatives: int
    true_negatives: int

    @property
    def flagged(self) -> int:
        return self.true_positives + self.false_positives

    @property
    def precision(self) -> float | None:
        return self.true_positives / self.flagged if self.flagged else None

    @property
    def recall(self) -> float | None:
        hallucinated = self.true_positives + self.false_negatives
        return self.true_positives / hallucinated if hallucinated else None

    def scores(self) -> tuple[float, float]:
        """(F1, balanced accuracy)."""
        negatives = self.false_negatives + self.true_negatives
        predicted = np.array([1] * self.flagged + [0] * negatives)
        gold = np.array(
            [1] * self.true_positives
            + [0] * self.false_positives
            + [1] * self.false_negatives
            + [0] * self.true_negatives
        )
        return decision_scores(predicted, gold)

    def precision_interval(self) -> tuple[float, float] | None:
        return wilson(self.true_positives, self.flagged)

    def line(self) -> str:
        f1, balanced = self.scores()
        interval = self.precision_interval()
        precision = (
            "n/a"
            if self.precision is None or interval is None
            else f"{self.precision:.2f} [{interval[0]:.2f}, {interval[1]:.2f}]"
        )
        recall = "n/a" if self.recall is None else f"{self.recall:.2f}"
        return (
            f"precision {precision} ({self.true_positives}/{self.flagged} flags right), "
            f"recall {recall}, F1 {f1:.2f}, balanced accuracy {balanced:.2f}"
        )

    def to_dict(self) -> dict[str, Any]:
        f1, balanced = self.scores()
        return {
            "marks": self.marks,
            "true_positives": self.true_positives,
            "false_positives": self.false_positives,
            "false_negatives": self.false_negatives,
            "true_negatives": self.true_negatives,
            "precision": self.precision,
            "recall": self.recall,
            "f1": round(f1, 4),
            "balanced_accuracy": round(balanced, 4),
        }


def wilson(hits: int, total: int) -> tuple[float, float] | None:
    """The 95 % Wilson score interval of ``hits`` out of ``total`` (None for 0)."""
    if total == 0:
        return None
    p = hits / total
    centre = p + Z * Z / (2 * total)
    half = Z * math.sqrt(p * (1 - p) / total + Z * Z / (4 * total * total))
    low, high = (centre - half) / (1 + Z * Z / total), (centre + half) / (1 + Z * Z / total)
    return (max(low, 0.0), min(high, 1.0))


def flags(model: LocalModel, params: ModelParams, answer: MarkedAnswer) -> list[bool]:
    """Which claims of ``answer`` the chain flags with ``model`` as its learned reading."""
    readings, _ = read_answer(model, params, answer.inputs, answer.vectors)
    return [r.label in HALLUCINATION_LABELS for r in readings]


def figures(model: LocalModel, params: ModelParams, answers: Sequence[MarkedAnswer]) -> Figures:
    counts = [0, 0, 0, 0]  # tp, fp, fn, tn
    for answer in answers:
        said = flags(model, params, answer)
        for index, truly in answer.marked.items():
            counts[(0 if truly else 1) if said[index] else (2 if truly else 3)] += 1
    return Figures(sum(counts), *counts)


def _objective(figure: Figures) -> float:
    """What the cut points maximise: F1 + balanced accuracy of the flags, as training does."""
    f1, balanced = figure.scores()
    return f1 + balanced


def _claim_rows(answers: Sequence[MarkedAnswer]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The marked claims the model decides: features, labels (1 = hallucinated), groups."""
    rows, labels, groups = [], [], []
    for number, answer in enumerate(answers):
        for index, truly in answer.marked.items():
            if answer.inputs[index].decided is None:
                rows.append(answer.vectors[index])
                labels.append(1.0 if truly else 0.0)
                groups.append(number)
    width = answers[0].vectors.shape[1] if answers else 0
    matrix = np.stack(rows) if rows else np.zeros((0, width))
    return matrix, np.array(labels), np.array(groups)


def _answer_rows(answers: Sequence[MarkedAnswer]) -> tuple[np.ndarray, np.ndarray]:
    """The answers whose own label the marks settle, for the answer model: hallucinated when
    a marked claim is; grounded when every claim is marked and none is (an answer with an
    unmarked claim and no hallucinated mark says nothing about the answer)."""
    rows, labels = [], []
    for answer in answers:
        if any(answer.marked.values()):
            labels.append(1.0)
        elif len(answer.marked) == len(answer.inputs):
            labels.append(0.0)
        else:
            continue
        rows.append(response_features(answer.vectors))
    width = len(response_features(answers[0].vectors)) if answers else 0
    return (np.stack(rows) if rows else np.zeros((0, width))), np.array(labels)


def _map_fit(base: LinearModel, x: np.ndarray, y: np.ndarray, lam: float) -> LinearModel:
    """The MAP claim model under a Gaussian prior at ``base`` (standardised space)."""
    from scipy.optimize import minimize

    z = (x - np.asarray(base.mean)) / np.asarray(base.scale)
    prior = np.array([*base.coef, base.intercept])

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:-1], theta[-1]
        logits = z @ w + b
        p = 1.0 / (1.0 + np.exp(-logits))
        value = float(np.sum(np.logaddexp(0.0, logits) - y * logits))
        gradient = np.append(z.T @ (p - y), np.sum(p - y))
        value += lam / 2 * float(np.sum((theta - prior) ** 2))
        return value, gradient + lam * (theta - prior)

    result = minimize(loss, prior, jac=True, method="L-BFGS-B", options={"maxiter": 500})
    theta = result.x
    return replace(base, coef=tuple(float(v) for v in theta[:-1]), intercept=float(theta[-1]))


def _log_loss(model: LinearModel, x: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(model.probability(x), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def _folds(groups: np.ndarray, splits: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import GroupKFold

    splits = min(splits, len(np.unique(groups)))
    if splits < 2:
        return []
    splitter = GroupKFold(n_splits=splits, shuffle=True, random_state=seed)
    return list(splitter.split(np.zeros(len(groups)), groups=groups))


def _choose_lambda(base: LinearModel, x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> float:
    """The prior strength with the lowest held-out log loss (grouped folds inside the data)."""
    folds = _folds(groups, 3, 0)
    if not folds or len(np.unique(y)) < 2:
        return LAMBDAS[-1]
    best, chosen = math.inf, LAMBDAS[-1]
    for lam in LAMBDAS:
        held = []
        for fit, test in folds:
            if len(np.unique(y[fit])) < 2:
                continue
            held.append(_log_loss(_map_fit(base, x[fit], y[fit], lam), x[test], y[test]))
        if held and float(np.mean(held)) < best:
            best, chosen = float(np.mean(held)), lam
    return chosen


def _with_cuts(model: LocalModel, unsupported: float, response: float) -> LocalModel:
    base = model.thresholds
    shift = unsupported - base.unsupported
    return replace(
        model,
        thresholds=Thresholds(
            unsupported=round(unsupported, 6),
            weak=round((1.0 + unsupported) / 2, 6),
            response=round(response, 6),
            span=round(min(max(base.span + shift, 0.0), 1.0), 6),
        ),
    )


def _candidates(values: np.ndarray, current: float, count: int) -> list[float]:
    if not len(values):
        return [current]
    quantiles = np.quantile(values, np.linspace(0.05, 0.95, count))
    return sorted({round(float(v), 6) for v in (*quantiles, current)})


def refit(
    base: LocalModel, params: ModelParams, answers: Sequence[MarkedAnswer]
) -> tuple[LocalModel, float]:
    """The model refit on ``answers``' marks and the prior strength chosen."""
    x, y, groups = _claim_rows(answers)
    lam = LAMBDAS[-1]
    model = base
    if len(y) >= 5 and len(np.unique(y)) == 2:
        lam = _choose_lambda(base.claim, x, y, groups)
        model = replace(base, claim=_map_fit(base.claim, x, y, lam))
    rx, ry = _answer_rows(answers)
    if len(ry) >= 5 and len(np.unique(ry)) == 2:
        strength = _choose_lambda(base.response, rx, ry, np.arange(len(ry)))
        model = replace(model, response=_map_fit(base.response, rx, ry, strength))
    supported = (
        model.supported_probability(np.concatenate([a.vectors for a in answers]))
        if answers
        else np.zeros(0)
    )
    responses = np.array(
        [model.response_probability(response_features(a.vectors)[None, :]) for a in answers]
    )
    best, chosen = -math.inf, model
    current = (model.thresholds.unsupported, model.thresholds.response)
    for unsupported in _candidates(supported, current[0], 8):
        for response in _candidates(responses, current[1], 6):
            candidate = _with_cuts(model, unsupported, response)
            value = _objective(figures(candidate, params, answers))
            # Ties keep the cut points nearest the configured ones.
            nearer = _gap(candidate, current) < _gap(chosen, current)
            if value > best + 1e-12 or (abs(value - best) <= 1e-12 and nearer):
                best, chosen = value, candidate
    return chosen, lam


def _gap(model: LocalModel, current: tuple[float, float]) -> float:
    return abs(model.thresholds.unsupported - current[0]) + abs(
        model.thresholds.response - current[1]
    )


@dataclass(frozen=True)
class CrossValidated:
    """Held-out figures of the configured model and of the refit, over the same marks."""

    before: Figures
    after: Figures
    folds: int
    answers: int

    @property
    def better(self) -> bool:
        before_f1, before_ba = self.before.scores()
        after_f1, after_ba = self.after.scores()
        precision_before = self.before.precision or 0.0
        precision_after = self.after.precision or 0.0
        return after_f1 + after_ba > before_f1 + before_ba + 1e-9 and (
            precision_after >= precision_before - 1e-9
        )


def cross_validate(
    base: LocalModel,
    params: ModelParams,
    answers: Sequence[MarkedAnswer],
    folds: int = 5,
    seed: int = 0,
) -> CrossValidated:
    """Grouped K-fold over the marked answers: each fold's marks labelled by the configured
    model and by a refit on the other folds."""
    check_marks(answers)
    split = _folds(np.arange(len(answers)), folds, seed)
    before = [0, 0, 0, 0]
    after = [0, 0, 0, 0]
    for fit_rows, held_rows in split:
        fitted, _ = refit(base, params, [answers[i] for i in fit_rows])
        held = [answers[i] for i in held_rows]
        for total, model in ((before, base), (after, fitted)):
            figure = figures(model, params, held)
            total[0] += figure.true_positives
            total[1] += figure.false_positives
            total[2] += figure.false_negatives
            total[3] += figure.true_negatives
    return CrossValidated(
        Figures(sum(before), *before), Figures(sum(after), *after), len(split), len(answers)
    )


def check_marks(answers: Sequence[MarkedAnswer]) -> None:
    marks = [truly for a in answers for truly in a.marked.values()]
    if len(marks) < MIN_MARKS:
        raise CalibrationError(
            f"calibrate needs at least {MIN_MARKS} marked claims with a verdict; there are "
            f"{len(marks)} (audit-pipeline mark)"
        )
    if all(marks) or not any(marks):
        raise CalibrationError(
            "calibrate needs marks of both kinds: claims marked supported and claims marked "
            "unsupported or contradicted"
        )
    if len(answers) < 2:
        raise CalibrationError("calibrate needs marks on at least two answers")
