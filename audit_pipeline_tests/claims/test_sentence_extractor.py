from audit_pipeline.claims import SentenceClaimExtractor
from audit_pipeline.text.sentences import sentence_spans

TRICKY = """Hello! Sure, the default is TLS 1.2 [source: security.md#Transport].
Dr. Smith set the quota to 2.5 GB for the U.S. office, e.g. for nightly backups.
## Retention
Key facts:
- Keys rotate every 90 days [1].
- **Backups are encrypted with AES-256.**
1) Version v3.4.1 is current; version 3.3 reaches end of life on 2025-06-30 and loses support.
The “premium” plan costs $20/month… It includes 24/7 support.
Do you need anything else? I hope this helps!"""


def extract(text: str, **kwargs: object) -> list:
    return SentenceClaimExtractor(**kwargs).extract(text)  # type: ignore[arg-type]


def test_every_span_maps_back_exactly() -> None:
    claims = extract(TRICKY)
    assert claims
    for claim in claims:
        assert TRICKY[claim.start : claim.end] == claim.text


def test_abbreviations_decimals_and_versions_do_not_split_sentences() -> None:
    texts = [c.text for c in extract(TRICKY)]
    assert (
        "Dr. Smith set the quota to 2.5 GB for the U.S. office, e.g. for nightly backups." in texts
    )
    assert "the default is TLS 1.2" in texts


def test_questions_greetings_lead_ins_and_headings_are_not_claims() -> None:
    texts = " | ".join(c.text for c in extract(TRICKY))
    for excluded in ("Hello", "Sure", "anything else", "hope this helps", "Retention", "Key facts"):
        assert excluded not in texts


def test_citation_markers_are_cut_out_of_claims() -> None:
    claims = extract(TRICKY)
    assert all("[" not in c.text and "source:" not in c.text for c in claims)
    assert any(c.text == "Keys rotate every 90 days" for c in claims)


def test_list_items_markdown_and_clauses() -> None:
    claims = extract(TRICKY)
    by_text = {c.text: c for c in claims}
    assert by_text["Backups are encrypted with AES-256."].kind == "item"
    assert by_text["Version v3.4.1 is current"].kind == "clause"
    assert "version 3.3 reaches end of life on 2025-06-30 and loses support." in by_text
    assert "It includes 24/7 support." in by_text


def test_fallback_answers_produce_no_claims() -> None:
    configured = "I'm sorry, I can't find that in our documentation. Please contact support."
    extractor = SentenceClaimExtractor(fallback_sentences=[configured])
    assert extractor.extract(configured) == []
    assert (
        extractor.extract(
            "I'm sorry,  I can't find that in our\ndocumentation.  Please contact support."
        )
        == []
    )
    assert extract("I don't have that information.") == []
    assert extract("Unfortunately, the provided context does not mention the refund window.") == []
    mixed = extract("I don't have that information. The office is closed on Sundays.")
    assert [c.text for c in mixed] == ["The office is closed on Sundays."]


def test_a_did_you_mean_suggestion_list_is_not_a_claim() -> None:
    """The vault bot's abstention lists sections whose titles carry numbers and full stops:
    none of it may be verified as a claim (it was, and came out contradicted)."""
    answer = (
        "I can't answer that from the trusted documents available to me. Did you mean: "
        "3. Scope of the ISMS (iso-27001-information-security-policy.md); System Description "
        "Highlights (soc2-type-ii-report-summary.md); 4. Lawful Bases (global-privacy-policy.md)?"
        " Backups are kept for 35 days."
    )
    assert [c.text for c in extract(answer)] == ["Backups are kept for 35 days."]


def test_refusal_clause_inside_long_sentence_keeps_the_factual_clause() -> None:
    text = (
        "Her last known address was in Dayton, Ohio, but no information is available about "
        "her employer or her family."
    )
    assert [c.text for c in extract(text)] == ["Her last known address was in Dayton, Ohio"]


def test_claim_ids_are_stable_and_distinct() -> None:
    first, second = extract(TRICKY), extract(TRICKY)
    assert [c.claim_id for c in first] == [c.claim_id for c in second]
    assert len({c.claim_id for c in first}) == len(first)


def test_sentence_spans_newlines_and_abbreviation_edge_cases() -> None:
    text = "The answer is no. Located in Santa Barbara, CA. See No. 5 now.\nNext line here"
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "The answer is no.",
        "Located in Santa Barbara, CA.",
        "See No. 5 now.",
        "Next line here",
    ]
