from __future__ import annotations

import os
from pathlib import Path

import pytest

from audit_pipeline.vault.documents import VaultError, scan_vault


def _write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


def test_reads_markdown_and_text_with_title_and_hash(tmp_path: Path) -> None:
    _write(tmp_path / "policy.md", "# Access Policy\n\nMFA is required.\n")
    _write(tmp_path / "sub" / "notes.txt", "Plain notes without a heading.\n")
    _write(tmp_path / "image.png", b"\x89PNG\r\n")  # not matched by the include patterns
    scan = scan_vault(tmp_path)
    assert [d.doc_id for d in scan.documents] == ["policy.md", "sub/notes.txt"]
    policy, notes = scan.documents
    assert policy.title == "Access Policy"
    assert notes.title == "notes"
    assert len(policy.content_hash) == 64
    assert policy.size_bytes == len(b"# Access Policy\n\nMFA is required.\n")
    assert scan.skipped == ()


def test_state_hash_changes_with_content(tmp_path: Path) -> None:
    doc = _write(tmp_path / "a.md", "# A\n\none\n")
    before = scan_vault(tmp_path).state_hash
    assert scan_vault(tmp_path).state_hash == before
    doc.write_text("# A\n\ntwo\n", encoding="utf-8")
    assert scan_vault(tmp_path).state_hash != before


def test_bad_files_are_skipped_with_a_reason_naming_them(tmp_path: Path) -> None:
    _write(tmp_path / "good.md", "# Good\n\nFine.\n")
    _write(tmp_path / "latin1.md", "Caf\xe9 policy".encode("latin-1"))
    _write(tmp_path / "binary.md", b"abc\x00\x01\x02")
    _write(tmp_path / "empty.md", b"")
    _write(tmp_path / "blank.txt", "   \n\n")
    _write(tmp_path / "huge.md", "word " * 400)
    scan = scan_vault(tmp_path, max_file_bytes=1000)
    assert [d.doc_id for d in scan.documents] == ["good.md"]
    reasons = {s.path: s.reason for s in scan.skipped}
    assert "not valid UTF-8" in reasons["latin1.md"]
    assert reasons["binary.md"] == "binary file"
    assert reasons["empty.md"] == "empty file"
    assert "whitespace" in reasons["blank.txt"]
    assert "1000-byte limit" in reasons["huge.md"]


def test_missing_vault_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(VaultError, match=r"vault directory not found: .*nowhere"):
        scan_vault(tmp_path / "nowhere")


def test_vault_without_readable_documents_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(VaultError, match="no readable document"):
        scan_vault(tmp_path)
    _write(tmp_path / "only.md", b"\xff\xfe\x00bin")
    with pytest.raises(VaultError, match=r"1 skipped: only.md: binary file"):
        scan_vault(tmp_path)


def test_symlink_loops_are_reported_not_followed_forever(tmp_path: Path) -> None:
    _write(tmp_path / "docs" / "a.md", "# A\n\ntext\n")
    os.symlink(tmp_path / "docs", tmp_path / "docs" / "again")  # directory loop
    os.symlink(tmp_path / "self.md", tmp_path / "self.md")  # self-referencing file link
    scan = scan_vault(tmp_path)
    assert [d.doc_id for d in scan.documents] == ["docs/a.md"]
    reasons = {s.path: s.reason for s in scan.skipped}
    assert "symlink loop" in reasons["docs/again"]
    assert "self.md" in reasons


def test_symlinks_out_of_the_vault_are_skipped_unless_allowed(tmp_path: Path) -> None:
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    _write(vault / "policy.md", "# Policy\n\nMFA is required.\n")
    _write(outside / "secret.md", "# Secret\n\nNot a trusted document.\n")
    _write(outside / "more" / "notes.md", "# Notes\n\nAlso outside.\n")
    os.symlink(outside / "secret.md", vault / "secret.md")
    os.symlink(outside / "more", vault / "more")
    os.symlink(vault / "policy.md", vault / "alias.md")  # inside the vault: followed
    scan = scan_vault(vault)
    assert [d.doc_id for d in scan.documents] == ["alias.md", "policy.md"]
    reasons = {s.path: s.reason for s in scan.skipped}
    assert set(reasons) == {"secret.md", "more"}
    assert reasons["secret.md"].startswith(f"symlink to {outside / 'secret.md'}, outside")
    assert "vault.follow_external_symlinks: true" in reasons["more"]
    allowed = scan_vault(vault, follow_external_symlinks=True)
    assert [d.doc_id for d in allowed.documents] == [
        "alias.md",
        "more/notes.md",
        "policy.md",
        "secret.md",
    ]
