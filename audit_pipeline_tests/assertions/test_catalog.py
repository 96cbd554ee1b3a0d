"""Mapping citation labels to vault files (level 1 of citation verification)."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit_pipeline.assertions import VaultCatalog
from audit_pipeline.vault.documents import scan_vault


@pytest.mark.parametrize(
    ("label", "doc_id", "via"),
    [
        ("soc2-type-ii-report-summary.md", "soc2-type-ii-report-summary.md", "file name"),
        ("Encryption_Standard.MD", "encryption-standard.md", "file name"),
        ("Global Privacy Policy", "global-privacy-policy.md", "file name"),
        ("SOC 2 Type II Report", "soc2-type-ii-report-summary.md", "title"),
        ("FAQ", "security-faq.md", "title"),
        ("ISO 27001", "iso-27001-information-security-policy.md", "title"),
        ("Backup Standard", "business-continuity-and-backup-standard.md", "title"),
        ("Tallyhawk Privacy Policy", "global-privacy-policy.md", "title"),
    ],
)
def test_labels_resolve_by_file_name_or_title(
    catalog: VaultCatalog, label: str, doc_id: str, via: str
) -> None:
    resolution = catalog.resolve(label)
    assert (resolution.file, resolution.via) == (doc_id, via)


def test_alias_wins_and_is_case_space_and_punctuation_insensitive(
    catalog: VaultCatalog,
) -> None:
    aliased = VaultCatalog(
        entries=catalog.entries,
        aliases={"SOC2_Type2_Report_v2.md": "soc2-type-ii-report-summary.md"},
    )
    resolution = aliased.resolve("soc2 type2 report v2 .md")
    assert (resolution.file, resolution.via) == ("soc2-type-ii-report-summary.md", "alias")
    # Without the alias, the seed's file name is a file the vault does not have.
    unaliased = catalog.resolve("SOC2_Type2_Report_v2.md")
    assert unaliased.file == "SOC2_Type2_Report_v2.md"
    assert catalog.find_file(unaliased.file) is None


def test_unknown_and_ambiguous_labels_are_unresolved(catalog: VaultCatalog) -> None:
    unknown = catalog.resolve("Penetration Test Report")
    assert unknown.file is None and "unknown source" in unknown.detail
    ambiguous = catalog.resolve("Policy")
    assert ambiguous.file is None
    assert "ambiguous" in ambiguous.detail and "access-control-policy.md" in ambiguous.detail


def test_find_file_in_subdirectories(tmp_path: Path) -> None:
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "backup.md").write_text("# Backup\n\nNightly.\n", encoding="utf-8")
    (tmp_path / "faq.md").write_text("# FAQ\n\nQuestions.\n", encoding="utf-8")
    catalog = VaultCatalog.from_scan(scan_vault(tmp_path))
    assert catalog.find_file("policies/backup.md") == "policies/backup.md"
    assert catalog.find_file("backup.md") == "policies/backup.md"
    assert catalog.find_file("./faq.md") == "faq.md"
    assert catalog.find_file("restore.md") is None
