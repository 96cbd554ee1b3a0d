"""Vault files left out are named, with their reasons, where people look: the console, the
JSON log and ``--json`` (not only in DuckDB); so is a PDF that lost much of its text as
running headers and footers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from audit_pipeline_tests.cli.helpers import cli
from audit_pipeline_tests.helpers import write_audit_config
from audit_pipeline_tests.vault.helpers import write_pdf

pytestmark = pytest.mark.slow


def test_skipped_files_are_listed_on_the_console_and_in_the_logs(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    config = write_audit_config(tmp_path, sample_index_dir)
    vault = tmp_path / "vault"
    (vault / "scan.md").write_bytes(b"%PDF\x00\x01binary")
    (vault / "latin1.md").write_bytes("Caf\xe9 policy".encode("latin-1"))
    (vault / "loop").mkdir()
    os.symlink(vault / "loop", vault / "loop" / "again")
    secret = tmp_path / "elsewhere" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("# Not trusted\n\nThe admin password is hunter2.\n")
    os.symlink(secret, vault / "linked.md")
    notes = ("Badge access.", "Key rotation.", "Log retention.", "Patching.")
    write_pdf(vault / "thin.pdf", [[("p", f"Owner note: {note}")] for note in notes])
    out = tmp_path / "summary.json"

    result = cli(config, "run", "--no-progress", "--id", "SOC2-001", "--json", str(out))

    assert result.returncode in (0, 1), result.stderr
    expected = {
        "scan.md": "binary file",
        "latin1.md": "not valid UTF-8",
        "loop/again": "symlink loop",
        "linked.md": "outside the vault: not followed",
    }
    assert "10 documents (4 skipped)" in result.stdout
    console = [line for line in result.stdout.splitlines() if line.startswith("  skipped  ")]
    assert len(console) == 4
    for path, reason in expected.items():
        assert any(f"skipped  {path}: " in line and reason in line for line in console), path
    logged = [
        json.loads(line)
        for line in (tmp_path / "logs" / "audit.jsonl").read_text().splitlines()
        if '"vault_file_skipped"' in line
    ]
    assert {entry["path"]: entry["level"] for entry in logged} == dict.fromkeys(expected, "warning")
    assert all(reason in next(e["reason"] for e in logged if e["path"] == path)
               for path, reason in expected.items())  # fmt: skip
    [warning] = [line for line in result.stdout.splitlines() if line.startswith("  warning  ")]
    assert "thin.pdf: " in warning and "of its text left out as running headers" in warning
    dropped = (tmp_path / "logs" / "audit.jsonl").read_text()
    assert '"vault_text_dropped"' in dropped and '"thin.pdf"' in dropped
    summary = json.loads(out.read_text())
    assert {item["path"] for item in summary["vault_skipped"]} == set(expected)
