import numpy as np

from audit_pipeline.verification.features import FEATURE_NAMES, align_claim, split_evidence


def _align(claim: str, evidence: str) -> dict[str, float]:
    sentences = split_evidence(evidence, "source")
    vectors = np.ones((len(sentences), 3)) / np.sqrt(3)
    return align_claim(claim, np.ones(3) / np.sqrt(3), sentences, vectors).features


def test_framing_features_are_model_inputs() -> None:
    assert "attribution_unseen" in FEATURE_NAMES
    assert "temporal_unseen" in FEATURE_NAMES


def test_time_words_missing_from_the_evidence_are_counted() -> None:
    evidence = "The council approved the new bridge. Construction costs were not disclosed."
    assert _align("Last week the council approved the bridge.", evidence)["temporal_unseen"] == 2
    assert _align("The council approved the new bridge.", evidence)["temporal_unseen"] == 0
    stated = "On Friday the council approved the new bridge."
    assert _align("The council approved the bridge on Friday.", stated)["temporal_unseen"] == 0


def test_attribution_the_aligned_sentence_does_not_make() -> None:
    evidence = "The council approved the new bridge."
    claim = "According to the mayor, the council approved the bridge."
    assert _align(claim, evidence)["attribution_unseen"] == 1
    attributed = "The mayor said the council approved the new bridge."
    assert (
        _align("The mayor said the council approved the bridge.", attributed)["attribution_unseen"]
        == 0
    )


def test_claims_without_evidence_get_framing_features() -> None:
    features = align_claim("Officials said it opened yesterday.", np.ones(3), [], np.zeros((0, 3)))
    assert features.features["attribution_unseen"] == 1
    assert features.features["temporal_unseen"] == 1
