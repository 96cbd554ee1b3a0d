from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.evidence import (
    LOGGED_CONTEXT,
    ContextEvidence,
    ContextPassage,
    record_passages,
    text_passages,
)
from audit_pipeline.evidence.bm25 import BM25
from audit_pipeline.evidence.structured_records import record_lines

CONTEXT = [
    ContextPassage(
        "Error codes in the payment service are retried automatically after a short delay.",
        "errors.md",
        "Payments",
    ),
    ContextPassage(
        "ERR-4021 means the card issuer declined the payment; it is never retried.",
        "errors.md",
        "Codes",
    ),
    ContextPassage("The payment service error handling retries most failures.", "ops.md", "Retry"),
    ContextPassage("Our office is in Lisbon and opens at 9 am.", "about.md", "Office"),
]


def test_exact_identifier_match_ranks_first(embedder: SentenceTransformerEmbedder) -> None:
    evidence = ContextEvidence(CONTEXT, embedder, top_k=3)
    [ranked] = evidence.for_claims(["Payment error ERR-4021 is retried by the service."])
    assert ranked[0].text.startswith("ERR-4021")
    assert ranked[0].bm25_score is not None and ranked[0].vector_score is not None
    assert [p.fused_score for p in ranked] == sorted((p.fused_score for p in ranked), reverse=True)


def test_passages_carry_provenance_and_source(embedder: SentenceTransformerEmbedder) -> None:
    [ranked] = ContextEvidence(CONTEXT, embedder, top_k=2).for_claims(["The office is in Lisbon."])
    best = ranked[0]
    assert (best.document, best.section, best.source) == ("about.md", "Office", LOGGED_CONTEXT)
    assert best.chunk_id == CONTEXT[3].chunk_id
    assert len(ranked) == 2


def test_batch_returns_one_list_per_claim_and_handles_empty_inputs(
    embedder: SentenceTransformerEmbedder,
) -> None:
    evidence = ContextEvidence(["Only passage."], embedder, top_k=5)
    assert [len(r) for r in evidence.for_claims(["a claim", "another claim"])] == [1, 1]
    assert evidence.for_claims([]) == []
    assert ContextEvidence([], embedder).for_claims(["x"]) == [[]]


def test_bm25_prefers_rare_terms() -> None:
    scores = BM25(["the cat sat", "the dog sat", "a zebra ran"]).scores("zebra sat")
    assert scores[2] > scores[0] > 0 and scores[0] == scores[1]


def test_structured_records_become_readable_lines() -> None:
    record = {
        "name": "Cafe X",
        "hours": {"Monday": "11:0-17:0"},
        "attributes": {"WiFi": None, "OutdoorSeating": False, "Ambience": "{'casual': True}"},
    }
    lines = record_lines(record)
    assert "name: Cafe X" in lines
    assert "hours Monday: 11:0-17:0" in lines
    assert "attributes Outdoor Seating: no" in lines
    assert "Ambience casual: yes" in lines
    assert "attributes WiFi: unknown" in lines  # a null is "not known", not "no"
    assert {p.section for p in record_passages(record)} >= {"", "hours"}


def test_long_text_is_windowed_by_sentence() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(40))
    passages = text_passages(text, "doc.md", max_chars=120)
    assert all(len(p.text) <= 120 for p in passages)
    assert " ".join(p.text for p in passages) == text
