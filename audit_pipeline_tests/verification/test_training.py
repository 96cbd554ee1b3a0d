import numpy as np

from audit_pipeline.verification.aggregate import RESPONSE_FEATURE_NAMES, response_features
from audit_pipeline.verification.features import FEATURE_NAMES
from audit_pipeline.verification.scorer import LocalModel
from audit_pipeline.verification.training import TrainingSet, best_threshold, fit_local_model


def synthetic(seed: int = 0) -> TrainingSet:
    """Responses whose hallucinated claims have low coverage and unseen numbers."""
    rng = np.random.default_rng(seed)
    features, labels, owner, response_labels = [], [], [], []
    for response in range(60):
        bad = response % 3 == 0
        response_labels.append(int(bad))
        for claim in range(4):
            row = rng.normal(0.0, 0.3, len(FEATURE_NAMES))
            wrong = bad and claim == 0
            row[FEATURE_NAMES.index("lex_all")] = 0.3 if wrong else 0.9
            row[FEATURE_NAMES.index("num_unseen")] = 1.0 if wrong else 0.0
            features.append(row)
            labels.append(int(wrong))
            owner.append(response)
    return TrainingSet(
        claim_features=np.array(features),
        claim_labels=np.array(labels),
        claim_response=np.array(owner),
        response_labels=np.array(response_labels),
        groups=np.array([f"source-{i // 2}" for i in range(60)]),
    )


def test_fitting_is_deterministic_and_round_trips_through_json() -> None:
    first = fit_local_model(synthetic(), seed=3)
    second = fit_local_model(synthetic(), seed=3)
    assert first.to_json() == second.to_json()
    loaded = LocalModel.from_json(first.to_json())
    assert loaded == first
    assert loaded.response_feature_names == RESPONSE_FEATURE_NAMES


def test_fitted_model_separates_the_signal() -> None:
    data = synthetic()
    model = fit_local_model(data)
    supported = model.supported_probability(data.claim_features)
    assert supported[data.claim_labels == 1].max() < supported[data.claim_labels == 0].min()
    matrix = data.response_matrix()
    scores = np.array([model.response_probability(row[None, :]) for row in matrix])
    flagged = scores >= model.thresholds.response
    assert (flagged == data.response_labels.astype(bool)).mean() > 0.9
    assert 0.0 < model.thresholds.unsupported < model.thresholds.weak < 1.0


def test_best_threshold_maximises_f1_plus_balanced_accuracy() -> None:
    scores = np.array([0.1, 0.2, 0.3, 0.8, 0.9])
    gold = np.array([0, 0, 0, 1, 1])
    assert best_threshold(scores, gold) == 0.8


def test_response_features_handle_answers_without_claims() -> None:
    empty = response_features(np.zeros((0, len(FEATURE_NAMES))))
    assert empty.shape == (len(RESPONSE_FEATURE_NAMES),)
    assert np.all(np.isfinite(empty))
