"""The local verifier as a chain of named checks (issue 25): each check is asked, the deciding
one names the verdict, and ``detection.checks`` configures which run."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from pydantic import ValidationError

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.records.verdicts import Label
from audit_pipeline.verification.checks.chain import DEFAULT_CHECKS, REGISTRY, CheckChain
from audit_pipeline.verification.configured import build_verifier
from audit_pipeline.verification.detection_settings import CheckName, DetectionSettings
from audit_pipeline.verification.local import MODEL, LocalVerifier
from audit_pipeline_tests.verification.test_sample_vault_claims import verdicts

WRONG_DEADLINE = "A lost laptop must be reported to the Security team within 3 days."
DENIAL = "I do not enforce multi-factor authentication."


@pytest.fixture(scope="module")
def retriever(sample_index_dir: Path, embedder: SentenceTransformerEmbedder) -> HybridRetriever:
    return HybridRetriever(VaultIndex(sample_index_dir, embedder))


def test_the_settings_name_exactly_the_registered_checks() -> None:
    assert set(get_args(CheckName)) == set(REGISTRY) == set(DEFAULT_CHECKS)
    assert DetectionSettings().checks == DEFAULT_CHECKS
    with pytest.raises(ValidationError, match="each check once"):
        DetectionSettings(checks=("polarity", "polarity"))
    with pytest.raises(ValidationError):
        DetectionSettings.model_validate({"checks": ["spelling"]})
    with pytest.raises(ValueError, match="unknown check"):
        CheckChain(["spelling"])


def test_the_deciding_check_names_the_verdict_and_a_check_left_out_decides_nothing(
    retriever: HybridRetriever, embedder: SentenceTransformerEmbedder
) -> None:
    full = build_verifier(DetectionSettings(), embedder)
    assert isinstance(full, LocalVerifier)
    wrong, denied = verdicts([WRONG_DEADLINE, DENIAL], retriever, full)
    assert (wrong.label, wrong.decided_by) == (Label.CONTRADICTED, "specifics")
    assert wrong.justification.startswith("Contradicted (specifics): ")
    assert (denied.label, denied.decided_by) == (Label.CONTRADICTED, "polarity")

    without = build_verifier(DetectionSettings(checks=("polarity", "rewrite")), embedder)
    assert isinstance(without, LocalVerifier)
    # Another configuration is another verifier: its verdicts are not carried over.
    assert without.version != full.version
    wrong_alone, denied_again = verdicts([WRONG_DEADLINE, DENIAL], retriever, without)
    assert wrong_alone.decided_by != "specifics"
    assert "(specifics)" not in wrong_alone.justification
    assert (denied_again.label, denied_again.decided_by) == (Label.CONTRADICTED, "polarity")


def test_with_no_check_the_learned_model_decides_every_claim(
    retriever: HybridRetriever, embedder: SentenceTransformerEmbedder
) -> None:
    bare = LocalVerifier(embedder, checks=CheckChain([]))
    found = verdicts([WRONG_DEADLINE, DENIAL], retriever, bare)
    assert {v.decided_by for v in found} == {MODEL}
    # No justification leads with a check that did not run.
    assert not any(v.justification.startswith(("Contradicted (", "Unsupported (")) for v in found)
