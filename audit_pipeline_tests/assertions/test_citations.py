"""Citation verification: levels 1-3 per citation, level 4 per turn."""

from __future__ import annotations

from audit_pipeline.assertions import (
    AssertionSettings,
    VaultCatalog,
    verify_citation,
    verify_citations,
)
from audit_pipeline.records.responses import Citation
from audit_pipeline.targets.cited_sources import citation_from_label, parse_citations


def levels(citation: Citation, catalog: VaultCatalog, settings: AssertionSettings) -> list:
    return [level.passed for level in verify_citation(citation, catalog, settings).levels]


def test_a_real_file_and_section_passes_all_levels(
    catalog: VaultCatalog, settings: AssertionSettings
) -> None:
    citation = citation_from_label("encryption-standard.md#6. Key Rotation")
    verdict = verify_citation(citation, catalog, settings)
    assert verdict.verified and verdict.doc_id == "encryption-standard.md"
    assert [level.level for level in verdict.levels] == [1, 2, 3]
    assert "1 of 1 section words" in verdict.levels[2].detail


def test_the_seed_label_form_with_a_section_hint(
    catalog: VaultCatalog, settings: AssertionSettings
) -> None:
    (citation,) = parse_citations("Based on [SOC 2 Type II Report, Bridge Letter]: yes.")
    verdict = verify_citation(citation, catalog, settings)
    assert verdict.verified and verdict.doc_id == "soc2-type-ii-report-summary.md"


def test_unknown_source_fails_level_1_and_stops(
    catalog: VaultCatalog, settings: AssertionSettings
) -> None:
    (citation,) = parse_citations("Based on [Penetration Test Report, Findings]: none.")
    verdict = verify_citation(citation, catalog, settings)
    assert levels(citation, catalog, settings) == [False, None, None]
    assert verdict.failure is not None and "unknown source" in verdict.failure.detail


def test_a_file_not_in_the_vault_fails_level_2(
    catalog: VaultCatalog, settings: AssertionSettings
) -> None:
    citation = citation_from_label("incident-response-plan.md#Notification")
    verdict = verify_citation(citation, catalog, settings)
    assert levels(citation, catalog, settings) == [True, False, None]
    assert verdict.failure is not None
    assert verdict.failure.detail == "cited file incident-response-plan.md is not in the vault"


def test_an_alias_to_a_removed_file_fails_level_2(catalog: VaultCatalog) -> None:
    settings = AssertionSettings(citation_aliases={"IR Plan": "ir-plan.md"})
    aliased = VaultCatalog(entries=catalog.entries, aliases=settings.citation_aliases)
    (citation,) = parse_citations("Based on [IR Plan, Roles]: the CISO leads.")
    assert levels(citation, aliased, settings) == [True, False, None]


def test_a_real_file_whose_section_hint_is_not_in_it_fails_level_3(
    catalog: VaultCatalog, settings: AssertionSettings
) -> None:
    citation = citation_from_label("encryption-standard.md#Penetration Testing Results")
    verdict = verify_citation(citation, catalog, settings)
    assert levels(citation, catalog, settings) == [True, True, False]
    assert verdict.failure is not None
    assert "0 of 3 section words" in verdict.failure.detail
    assert "missing: penetration, testing, results" in verdict.failure.detail


def test_level_3_uses_the_configured_ratio(catalog: VaultCatalog) -> None:
    # "management" occurs in the SOC 2 summary, "vulnerability" does not: exactly half.
    (citation,) = parse_citations("Based on [SOC 2 Type II Report, Vulnerability Management]:")
    assert verify_citation(citation, catalog, AssertionSettings()).verified
    strict = AssertionSettings(section_word_ratio=0.6)
    assert not verify_citation(citation, catalog, strict).verified


def test_a_hint_without_significant_words_must_occur_verbatim(
    catalog: VaultCatalog, settings: AssertionSettings
) -> None:
    assert verify_citation(
        citation_from_label("access-control-policy.md#4.3"), catalog, settings
    ).verified
    assert not verify_citation(
        citation_from_label("encryption-standard.md#4.3"), catalog, settings
    ).verified


def test_a_citation_without_section_hint_passes_level_3(
    catalog: VaultCatalog, settings: AssertionSettings
) -> None:
    assert verify_citation(citation_from_label("security-faq.md"), catalog, settings).verified


def test_level_4_required_source_and_label_strings(
    catalog: VaultCatalog, settings: AssertionSettings
) -> None:
    citations = parse_citations(
        "Keys rotate yearly [source: encryption-standard.md#6. Key Rotation] "
        "[source: security-faq.md#How is my data encrypted?]"
    )
    check = verify_citations(
        citations,
        catalog,
        settings,
        required_source="encryption-standard.md",
        must_contain=["key rotation"],
    )
    assert check.errors == 0 and check.total == 2
    assert check.source is not None and check.source.passed  # the extra FAQ citation is fine
    wrong = verify_citations(
        citations[1:],
        catalog,
        settings,
        required_source="encryption-standard.md",
        must_contain=["Key Rotation"],
    )
    assert wrong.source is not None and not wrong.source.passed
    assert wrong.source.detail == (
        "required source encryption-standard.md not cited (cited: security-faq.md); "
        'no citation label contains "Key Rotation"'
    )


def test_level_4_ignores_a_required_file_cited_with_a_fabricated_section(
    catalog: VaultCatalog, settings: AssertionSettings
) -> None:
    citations = parse_citations("[source: encryption-standard.md#Penetration Testing Results]")
    check = verify_citations(citations, catalog, settings, required_source="encryption-standard.md")
    assert check.errors == 1
    assert check.source is not None and not check.source.passed


def test_citation_check_outcome_and_per_citation_report(
    catalog: VaultCatalog, settings: AssertionSettings
) -> None:
    citations = parse_citations(
        "[source: encryption-standard.md#2. Encryption at Rest] [source: made-up.md#Keys]"
    )
    check = verify_citations(citations, catalog, settings)
    outcome = check.outcome(require_one=True)
    assert not outcome.passed
    assert outcome.detail.startswith('1 of 2 citation(s) failed: "made-up.md#Keys": level 2')
    report = [verdict.to_dict() for verdict in check.verdicts]
    assert report[0]["verified"] and not report[1]["verified"]
    assert [level["passed"] for level in report[1]["levels"]] == [True, False, None]
    assert check.source is None  # nothing required at level 4
    empty = verify_citations((), catalog, settings)
    assert not empty.outcome(require_one=True).passed
    assert empty.outcome(require_one=False).passed
