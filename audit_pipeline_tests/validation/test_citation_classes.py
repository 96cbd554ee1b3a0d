"""Citation-audit classes: a claim is cited only when its citation's document supports it."""

from __future__ import annotations

from audit_pipeline.targets.cited_sources import parse_citations
from audit_pipeline.validation.citation_audit import AuditedClaim, audit_citations


def _claims(text: str, *parts: tuple[str, str, set[str]]) -> list[AuditedClaim]:
    out = []
    for claim, label, documents in parts:
        start = text.index(claim)
        out.append(AuditedClaim(start, start + len(claim), label, frozenset(documents)))
    return out


def _resolve(citation):  # type: ignore[no-untyped-def]
    return citation.file if citation.file in {"backup.md", "crypto.md"} else None


def test_fully_cited_when_every_claim_has_a_supporting_citation() -> None:
    text = "Snapshots run daily [source: backup.md]. TLS 1.2 is required [source: crypto.md]."
    claims = _claims(
        text,
        ("Snapshots run daily", "supported", {"backup.md"}),
        ("TLS 1.2 is required", "supported", {"crypto.md"}),
    )
    audit = audit_citations(text, claims, parse_citations(text), _resolve)
    assert audit.cls == "fully_cited"
    assert audit.cited_and_supported == 2


def test_paragraph_end_citation_covers_the_line() -> None:
    text = "Snapshots run daily. Logs are archived continuously [source: backup.md]."
    claims = _claims(
        text,
        ("Snapshots run daily", "supported", {"backup.md"}),
        ("Logs are archived continuously", "supported", {"backup.md"}),
    )
    assert audit_citations(text, claims, parse_citations(text), _resolve).cls == "fully_cited"


def test_partially_cited_when_a_claim_cites_a_document_that_does_not_support_it() -> None:
    text = "Snapshots run daily [source: backup.md]. TLS 1.0 is allowed [source: backup.md]."
    claims = _claims(
        text,
        ("Snapshots run daily", "supported", {"backup.md"}),
        ("TLS 1.0 is allowed", "supported", {"crypto.md"}),
    )
    audit = audit_citations(text, claims, parse_citations(text), _resolve)
    assert audit.cls == "partially_cited"
    assert (audit.cited, audit.cited_and_supported) == (2, 1)


def test_uncited_without_citations_or_with_invented_sources() -> None:
    text = "Snapshots run daily. Logs are kept [source: made-up.md]."
    claims = _claims(
        text,
        ("Snapshots run daily", "supported", {"backup.md"}),
        ("Logs are kept", "supported", {"backup.md"}),
    )
    audit = audit_citations(text, claims, parse_citations(text), _resolve)
    assert audit.cls == "uncited"
    assert audit_citations(text, [], [], _resolve).cls is None


def test_leading_citation_covers_the_claims_after_it() -> None:
    text = "Based on [backup.md]: snapshots run daily. Logs are archived continuously."
    claims = _claims(
        text,
        ("snapshots run daily", "supported", {"backup.md"}),
        ("Logs are archived continuously", "weakly_supported", {"backup.md"}),
    )
    assert audit_citations(text, claims, parse_citations(text), _resolve).cls == "fully_cited"


def test_unsupported_claim_is_never_cited_and_supported() -> None:
    text = "Snapshots run hourly [source: backup.md]."
    claims = _claims(text, ("Snapshots run hourly", "contradicted", {"backup.md"}))
    assert audit_citations(text, claims, parse_citations(text), _resolve).cls == "uncited"


def test_engine_classifies_an_answer_against_given_sources(validator) -> None:
    from audit_pipeline_tests.validation.sample_sources import BACKUP_SOURCES

    answer = "Production databases take a full snapshot every day [source: source-1]."
    result = validator.validate("How often are databases backed up?", answer, BACKUP_SOURCES)
    assert result.citations.cls == "fully_cited"
    uncited = validator.validate(
        "How often are databases backed up?",
        "Production databases take a full snapshot every day.",
        BACKUP_SOURCES,
    )
    assert uncited.citations.cls == "uncited"
