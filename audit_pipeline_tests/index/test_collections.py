"""Per-collection thresholds: which collection a document is in, and what the bot retrieves."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit_pipeline.config import ConfigError, load_config
from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.index.collections import CollectionPolicy, CollectionSettings
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.relevance import hit_relevance
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.targets.base import TargetRequest
from audit_pipeline.targets.target_config import VaultBotTargetConfig
from audit_pipeline.targets.vault_bot import VaultBotTarget
from audit_pipeline.validation.guardrail_validator import guardrail_validator
from audit_pipeline_tests.helpers import REPO_ROOT, write_audit_config

ASSURANCE = ("soc2-type-ii-report-summary.md", "security-faq.md")
QUESTION = "Which firm performed your SOC 2 audit, and were any exceptions noted?"


def _policy(**entries: CollectionSettings) -> CollectionPolicy:
    return CollectionPolicy({"assurance": CollectionSettings(paths=ASSURANCE), **entries})


def test_a_document_is_in_the_first_matching_collection_then_its_folder_then_default() -> None:
    policy = CollectionPolicy(
        {
            "reports": CollectionSettings(paths=("audits/soc2-*.md",)),
            "audits": CollectionSettings(min_score=0.3),
        }
    )
    assert policy.collection_of("audits/soc2-2026.md") == "reports"
    assert policy.collection_of("audits/iso.md") == "audits"  # no paths: the sub-folder
    assert policy.collection_of("contracts/dpa.md") == "contracts"  # unconfigured folder
    assert policy.collection_of("faq.md") == "default"
    assert policy.thresholds("contracts").min_score == 0.0
    assert policy.thresholds("audits").min_score == 0.3


def _bot(index: VaultIndex, policy: CollectionPolicy | None) -> VaultBotTarget:
    retriever = HybridRetriever(index, collections=policy)
    config = VaultBotTargetConfig(top_k=4)
    validator = guardrail_validator(config, index.embedder)
    return VaultBotTarget("vault_bot", config, retriever, validator=validator)


@pytest.fixture(scope="module")
def index(sample_index_dir: Path, embedder: SentenceTransformerEmbedder) -> VaultIndex:
    return VaultIndex(sample_index_dir, embedder)


def test_thresholds_change_what_the_bot_retrieves(index: VaultIndex) -> None:
    request = TargetRequest("SOC2-003", 0, QUESTION)
    plain = _bot(index, _policy()).retrieve(request)
    assert plain.hits[0].document in ASSURANCE and plain.confidence >= 0.5

    # A min_score no assurance hit reaches: the bot sees no SOC 2 chunk, only other documents.
    closed = _bot(index, _policy(assurance=CollectionSettings(paths=ASSURANCE, min_score=0.95)))
    found = closed.retrieve(request)
    assert found.hits and not any(hit.document in ASSURANCE for hit in found.hits)
    # Where no hit of any collection reaches it, the bot abstains without calling its model.
    silent = _bot(index, CollectionPolicy({"default": CollectionSettings(min_score=0.95)}))
    assert not silent.retrieve(request).hits
    (reply,) = silent.answer_batch([request])
    assert reply.text == silent.config.fallback_sentence  # type: ignore[union-attr]

    # top_k caps a collection's chunks per query; the rest of the k come from elsewhere.
    capped = _bot(index, _policy(assurance=CollectionSettings(paths=ASSURANCE, top_k=1)))
    hits = capped.retrieve(request).hits
    assert len(hits) == 4 and sum(hit.document in ASSURANCE for hit in hits) == 1
    assert capped.fingerprint() != _bot(index, _policy()).fingerprint()


def test_min_score_applies_to_the_evidence_search_too(index: VaultIndex) -> None:
    claims = ["Harrow & Vale LLP performed the SOC 2 audit.", "Keys rotate every 12 months."]
    policy = CollectionPolicy({"default": CollectionSettings(min_score=0.55)})
    plain, strict = (
        HybridRetriever(index).search_many(claims, k=5),
        HybridRetriever(index, collections=policy).search_many(claims, k=5),
    )
    for query, before, after in zip(claims, plain, strict, strict=True):
        assert [h for h in before if hit_relevance(query, h) >= 0.55] == after
        assert len(after) < len(before)


def test_collection_settings_are_validated(tmp_path: Path) -> None:
    bad = write_audit_config(tmp_path, collections={"default": {"paths": ["*.md"]}})
    with pytest.raises(ConfigError, match=r"collections\.default .* takes no paths"):
        load_config(bad)
    bad = write_audit_config(tmp_path, collections={"policies": {"min_score": 1.5}})
    with pytest.raises(ConfigError, match=r"collections\.policies\.min_score"):
        load_config(bad)
    assert load_config(REPO_ROOT / "audit.yaml").collection_policy().configured == (
        "policies",
        "standards",
        "assurance",
    )
