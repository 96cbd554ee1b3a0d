"""Golden-set figures on a hand-checked toy index (real LanceDB, real embeddings)."""

from __future__ import annotations

import pytest

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.evaluation.golden import GoldenQuery
from audit_pipeline.evaluation.golden_run import RetrievalEvalReport, evaluate_retrieval
from audit_pipeline.evaluation.retrieval_figures import QueryResult, summarize
from audit_pipeline.index.collections import CollectionPolicy, CollectionSettings
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.vault.chunking import chunk_documents
from audit_pipeline.vault.documents import scan_vault

TOY = {
    "policies/keys.md": "# Key Rotation\n\nEncryption keys are rotated every twelve months "
    "by the key custodians.\n",
    "policies/passwords.md": "# Passwords\n\nWorkforce passwords must be at least fourteen "
    "characters long.\n",
    "faq/hosting.md": "# Hosting\n\nCustomer data is hosted in Frankfurt, Germany, or in "
    "Virginia, USA.\n",
}
KEYS = GoldenQuery("How often are encryption keys rotated?", ("policies/keys.md",))
HOSTING = GoldenQuery("Where is customer data hosted?", ("faq/hosting.md",))
# Two expected documents, only one of which can come back at top_k 1: recall 1/2.
PASSWORDS = GoldenQuery(
    "How long must workforce passwords be?", ("policies/passwords.md", "faq/hosting.md")
)


@pytest.fixture(scope="module")
def toy_index(
    tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder
) -> VaultIndex:
    root = tmp_path_factory.mktemp("toy")
    for name, text in TOY.items():
        (root / "vault" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "vault" / name).write_text(text, encoding="utf-8")
    index = VaultIndex(root / "vault.lance", embedder)
    index.sync(chunk_documents(scan_vault(root / "vault").documents))
    return index


def _evaluate(index: VaultIndex, policy: CollectionPolicy) -> RetrievalEvalReport:
    return evaluate_retrieval(
        HybridRetriever(index, collections=policy),
        [KEYS, HOSTING, PASSWORDS],
        policy,
        top_k=1,
        k=2,
        config_hash="c",
        golden_hash="g",
    )


def test_figures_match_the_hand_computed_ones(toy_index: VaultIndex) -> None:
    evaluated = _evaluate(toy_index, CollectionPolicy())
    # Hand-checked: each question ranks its own document first.
    assert [r.retrieved for r in evaluated.results] == [
        ("policies/keys.md",),
        ("faq/hosting.md",),
        ("policies/passwords.md",),
    ]
    report = evaluated.to_dict()

    # One hit per query, scored over k=2 slots: precision@2 = 1/2 for every query; each hit is
    # on target (hit precision 1); recall 1, 1 and 1/2; each first hit is relevant (MRR 1).
    assert report["overall"] == {
        "queries": 3,
        "precision": 0.5,
        "hit_precision": 1.0,
        "recall": round(5 / 6, 4),
        "mrr": 1.0,
        "abstention_rate": 0.0,
        "p95_latency_ms": report["overall"]["p95_latency_ms"],
    }
    assert report["overall"]["p95_latency_ms"] > 0
    # Collections come from the sub-folders; a query counts where its first expected doc is.
    assert list(report["per_collection"]) == ["faq", "policies"]
    assert report["per_collection"]["policies"]["recall"] == 0.75
    assert report["per_collection"]["faq"]["queries"] == 1
    assert [miss["query"] for miss in report["misses"]] == [PASSWORDS.query]


def test_a_collection_threshold_drops_its_hits_and_a_query_may_abstain(
    toy_index: VaultIndex,
) -> None:
    policy = CollectionPolicy({"faq": CollectionSettings(min_score=1.0)})
    faq_closed = _evaluate(toy_index, policy).to_dict()

    # The hosting question now gets a policies chunk: nothing relevant, but no abstention.
    assert faq_closed["per_collection"]["faq"] == {
        **faq_closed["per_collection"]["faq"],
        "precision": 0.0,
        "recall": 0.0,
        "mrr": 0.0,
        "abstention_rate": 0.0,
    }
    assert faq_closed["per_collection"]["policies"]["precision"] == 0.5  # unchanged

    everything_closed = _evaluate(
        toy_index, CollectionPolicy({"default": CollectionSettings(min_score=1.0)})
    ).to_dict()
    assert everything_closed["overall"]["abstention_rate"] == 1.0
    assert everything_closed["overall"]["precision"] == 0.0
    assert everything_closed["overall"]["hit_precision"] == 0.0


def test_precision_counts_empty_slots_and_hit_precision_does_not() -> None:
    query = GoldenQuery("q", ("a.md", "c.md"))
    result = QueryResult(query, "default", ("a.md", "b.md", "a.md"), ("d",) * 3, 10.0, k=5)

    assert result.precision == 2 / 5
    assert result.hit_precision == 2 / 3
    assert result.recall == 1 / 2
    assert result.reciprocal_rank == 1.0
    missed = QueryResult(query, "default", ("b.md", "c.md"), ("d", "d"), 30.0, k=5)
    assert missed.reciprocal_rank == 1 / 2
    figures = summarize([result, missed])
    assert figures.mrr == 0.75
    assert figures.p95_latency_ms == pytest.approx(29.0)  # linear between 10 and 30 ms
