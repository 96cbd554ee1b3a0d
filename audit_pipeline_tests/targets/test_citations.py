from __future__ import annotations

from audit_pipeline.targets import Citation, citation_from_label, parse_citations


def test_source_tags_with_sections_spans_and_several_per_answer() -> None:
    text = (
        "MFA is enforced [source: access-control.md#Multi-factor authentication]. "
        "See also [Source: faq.md] and [source: a.md#X; b.md]."
    )
    citations = parse_citations(text)
    assert [(c.file, c.section) for c in citations] == [
        ("access-control.md", "Multi-factor authentication"),
        ("faq.md", None),
        ("a.md", "X"),
        ("b.md", None),
    ]
    first = citations[0]
    assert first.start is not None and first.end is not None
    assert text[first.start : first.end] == (
        "[source: access-control.md#Multi-factor authentication]"
    )
    assert first.label == "access-control.md#Multi-factor authentication"


def test_seed_based_on_label_form() -> None:
    text = "Based on [SOC 2 Type II Report, Logical Access]: access is reviewed."
    (citation,) = parse_citations(text)
    assert citation == Citation(
        label="SOC 2 Type II Report, Logical Access",
        file=None,
        section="Logical Access",
        start=0,
        end=text.index(":"),
    )


def test_no_citation_and_unclosed_brackets() -> None:
    assert parse_citations("No sources here [source: unclosed") == ()
    assert parse_citations("Based on my knowledge, yes.") == ()


def test_labels_reported_by_a_target() -> None:
    assert citation_from_label("faq.md#Questionnaires") == Citation(
        "faq.md#Questionnaires", "faq.md", "Questionnaires", None, None
    )
    assert citation_from_label("[source: x.md]").file == "x.md"
    assert citation_from_label("Global Privacy Policy").file is None
