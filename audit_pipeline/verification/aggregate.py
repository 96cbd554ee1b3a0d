"""Response-level features: the claims of one answer summarised for a response-level decision.

Whether an answer contains a hallucination is decided better from all its claims together
than from its single riskiest claim: a long, abstractive but faithful answer has many slightly
odd claims; a hallucinated one has a few that are clearly off. Measured on RAGTruth
(cross-validated, grouped by source), the riskiest claim's probability ranks answers at about
0.75 AUC and a model over these aggregates at about 0.80.
"""

from __future__ import annotations

import math

import numpy as np

from audit_pipeline.verification.features import FEATURE_NAMES

AGGREGATES = ("max", "mean", "length_weighted_mean", "log_sum")
RESPONSE_FEATURE_NAMES: tuple[str, ...] = (
    *(f"{name}:{how}" for how in AGGREGATES for name in FEATURE_NAMES),
    "claims:log_count",
)
_CONTENT_WORDS = FEATURE_NAMES.index("content_words")


def response_features(claim_matrix: np.ndarray) -> np.ndarray:
    """One response's vector from the feature rows of its claims (zero claims allowed)."""
    count = len(claim_matrix)
    if count == 0:
        claim_matrix = np.zeros((1, len(FEATURE_NAMES)))
    weights = np.expm1(claim_matrix[:, _CONTENT_WORDS])
    weights = (
        weights / weights.sum() if weights.sum() > 0 else np.full(len(weights), 1 / len(weights))
    )
    return np.concatenate(
        [
            claim_matrix.max(axis=0),
            claim_matrix.mean(axis=0),
            (claim_matrix * weights[:, None]).sum(axis=0),
            np.log1p(np.clip(claim_matrix, 0, None).sum(axis=0)),
            [math.log1p(count)],
        ]
    )
