"""The fitted local model, applied with numpy only.

Two logistic regressions over standardised features: one scores each claim (probability it
is hallucinated), one scores a whole response from its claims' aggregated features. The
parameters live in ``local_model.json`` next to this module, written by
``python -m benchmarks.train_verifier``; loading them needs neither scikit-learn nor pickle, so
the artifact is reviewable text and cannot run code when loaded.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_MODEL_PATH = Path(__file__).with_name("local_model.json")


@dataclass(frozen=True)
class LinearModel:
    """``sigmoid(((x - mean) / scale) @ coef + intercept)``: the probability of a hallucination."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float

    def probability(self, features: np.ndarray) -> np.ndarray:
        x = np.atleast_2d(np.asarray(features, dtype=np.float64))
        z = (x - np.asarray(self.mean)) / np.asarray(self.scale)
        return 1.0 / (1.0 + np.exp(-(z @ np.asarray(self.coef) + self.intercept)))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LinearModel:
        return cls(
            mean=tuple(data["mean"]),
            scale=tuple(data["scale"]),
            coef=tuple(data["coef"]),
            intercept=float(data["intercept"]),
        )


@dataclass(frozen=True)
class Thresholds:
    """Cut points on the probability that a *claim is supported*.

    Below ``unsupported`` a claim is unsupported (or contradicted); below ``weak`` it is weakly
    supported. ``response`` is the cut on the *response hallucination* probability, and
    ``span`` the claim cut used inside a response judged hallucinated (see
    ``stages/model.py``).
    """

    unsupported: float
    weak: float
    response: float
    span: float

    def calibrated(self, probability: float) -> float:
        """The model's p(supported) on the scale verdicts report: ``unsupported`` maps to 0.5
        and ``weak`` to 0.75, linearly between, so a reader of ``verdicts.probability`` (and
        the cascade's band) needs no knowledge of where this model's cut points lie."""
        p = min(max(probability, 0.0), 1.0)
        if p < self.unsupported:
            return 0.5 * p / self.unsupported
        if p < self.weak:
            return 0.5 + 0.25 * (p - self.unsupported) / (self.weak - self.unsupported)
        return 0.75 + 0.25 * (p - self.weak) / (1.0 - self.weak) if self.weak < 1 else 1.0


@dataclass(frozen=True)
class LocalModel:
    """Claim model, response model, thresholds, and how they were fitted."""

    version: str
    feature_names: tuple[str, ...]
    response_feature_names: tuple[str, ...]
    claim: LinearModel
    response: LinearModel
    thresholds: Thresholds
    training: dict[str, Any] = field(default_factory=dict)

    def supported_probability(self, claim_features: np.ndarray) -> np.ndarray:
        """Probability that each claim (row) is supported by its evidence."""
        return 1.0 - self.claim.probability(claim_features)

    def response_probability(self, response_features: np.ndarray) -> float:
        """Probability that a response (one feature row) contains a hallucination."""
        return float(self.response.probability(response_features)[0])

    def quality(self) -> str:
        """The measured figures from the manifest, in words, so a reader knows how far to
        trust a verdict ("" when the model carries none)."""
        measured = self.training.get("measured")
        if not measured:
            return ""
        return (
            f"F1 {measured['f1']:.2f}, balanced accuracy {measured['balanced_accuracy']:.2f} "
            f"(trivial F1 {measured['trivial_f1']:.2f}) on {measured['dataset']}, "
            f"measured {measured['date']}"
        )

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    def digest(self) -> str:
        """A short content digest of the fitted parameters (part of the verifier's identity)."""
        return hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()[:16]

    @classmethod
    def from_json(cls, text: str) -> LocalModel:
        data = json.loads(text)
        return cls(
            version=str(data["version"]),
            feature_names=tuple(data["feature_names"]),
            response_feature_names=tuple(data["response_feature_names"]),
            claim=LinearModel.from_dict(data["claim"]),
            response=LinearModel.from_dict(data["response"]),
            thresholds=Thresholds(**data["thresholds"]),
            training=dict(data.get("training", {})),
        )

    @classmethod
    def load(cls, path: Path | str = DEFAULT_MODEL_PATH) -> LocalModel:
        return cls.from_json(Path(path).read_text(encoding="utf-8"))

    def save(self, path: Path | str) -> None:
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")
