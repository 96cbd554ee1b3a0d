"""Converters that lose no text silently: PDF running headers are told from headings, a PDF
that lost much of its text as furniture is reported (and stored), HTML nested past what the
parser reads and a DOCX that unpacks to hundreds of megabytes are skipped with the reason, and
a file that yields headings alone is never indexed as its title."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from audit_pipeline.runs.input_tables import write_vault_documents
from audit_pipeline.vault.documents import scan_vault
from audit_pipeline.vault.formats.docx import MAX_UNPACKED_BYTES
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.vault.helpers import write_docx, write_pdf

BODY = (
    "The control owner reviews the evidence every quarter and records the result in the "
    "register. Exceptions are approved by the security officer and expire after 90 days."
)
SUBJECTS = (
    "badge access",
    "laptop encryption",
    "log retention",
    "vendor review",
    "key rotation",
    "backup testing",
    "patching",
    "phishing drills",
    "firewall rules",
    "access reviews",
    "incident drills",
    "asset inventory",
)


def test_numbered_section_headings_are_kept_and_only_the_furniture_goes(tmp_path: Path) -> None:
    # Every page opens with "Section N: Control TH-P-00N" right under the running header
    # ("Example Corp - Internal") and ends with the footer "Page N of 12".
    pages = [
        [("h2", f"Section {n}: Control TH-P-{n:03d}"), ("p", f"{BODY} Scope: {subject}. " * 4)]
        for n, subject in enumerate(SUBJECTS, start=1)
    ]
    write_pdf(tmp_path / "controls.pdf", pages)

    scan = scan_vault(tmp_path)

    [document] = scan.documents
    headings = [line for line in document.text.splitlines() if line.startswith("#")]
    assert headings == [f"# Section {n}: Control TH-P-{n:03d}" for n in range(1, 13)]
    assert all(f"Scope: {subject}." in document.text for subject in SUBJECTS)
    assert "Example Corp" not in document.text
    assert "Page 3 of" not in document.text
    assert document.dropped_share is not None and 0 < document.dropped_share < 0.1
    assert scan.text_dropped == ()


def test_a_pdf_that_loses_much_of_its_text_as_furniture_is_reported_and_stored(
    tmp_path: Path,
) -> None:
    write_pdf(tmp_path / "thin.pdf", [[("p", f"Owner: {subject}.")] for subject in SUBJECTS])
    vault = tmp_path / "vault"
    vault.mkdir()
    (tmp_path / "thin.pdf").rename(vault / "thin.pdf")
    write_pdf(vault / "furniture-only.pdf", [[], [], []])

    scan = scan_vault(vault)

    [document] = scan.text_dropped
    assert document.doc_id == "thin.pdf"
    assert document.dropped_warning is not None
    assert document.dropped_warning.startswith(f"{document.dropped_share:.0%} of its text left")
    assert [(s.path, s.reason) for s in scan.skipped] == [
        ("furniture-only.pdf", "PDF whose only text is running headers and footers")
    ]
    store = Warehouse(tmp_path / "audit.duckdb")
    store.migrate()
    write_vault_documents(store, scan)
    stored = store.scalar("SELECT dropped_share FROM vault_documents WHERE doc_id = 'thin.pdf'")
    assert stored == document.dropped_share > 0.1


def test_html_nested_too_deep_or_without_body_text_is_skipped(tmp_path: Path) -> None:
    paragraph = "<p>Backups are kept for 35 days in the EU region.</p>"
    deep = "<div>" * 100_000 + paragraph + "</div>" * 100_000
    (tmp_path / "deep.html").write_text(
        f"<html><head><title>Deep page</title></head><body><h1>Deep</h1>{deep}</body></html>"
    )
    (tmp_path / "headings.html").write_text(
        "<html><head><title>Only headings</title></head><body><main><h1>Backups</h1>"
        "<h2>Retention</h2></main></body></html>"
    )
    nested = "<div>" * 40 + paragraph * 3 + "</div>" * 40
    (tmp_path / "fine.html").write_text(f"<html><body><h1>Fine</h1>{nested}</body></html>")

    scan = scan_vault(tmp_path)

    assert [doc.doc_id for doc in scan.documents] == ["fine.html"]
    assert "35 days" in scan.documents[0].text
    reasons = {s.path: s.reason for s in scan.skipped}
    assert reasons["deep.html"] == (
        "HTML nested 100002 elements deep (more than 250): the text below that depth cannot be read"
    )
    assert reasons["headings.html"] == "HTML page without main text content"


def _with_part(docx: bytes, name: str, content: bytes) -> bytes:
    """The package with one part replaced."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(docx)) as source, zipfile.ZipFile(out, "w") as target:
        for entry in source.infolist():
            data = content if entry.filename == name else source.read(entry)
            target.writestr(entry, data, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def test_a_docx_that_unpacks_past_the_limit_or_holds_only_a_title_is_skipped(
    tmp_path: Path,
) -> None:
    write_docx(tmp_path / "good.docx", [("Heading 1", "Backups"), ("Normal", BODY)])
    good = (tmp_path / "good.docx").read_bytes()
    with zipfile.ZipFile(io.BytesIO(good)) as package:
        xml = package.read("word/document.xml")
    padding = b" " * (MAX_UNPACKED_BYTES + 1)  # deflates to a few tens of kilobytes
    bomb = _with_part(good, "word/document.xml", xml.replace(b"<w:body>", b"<w:body>" + padding))
    assert len(bomb) < 2_000_000  # under vault.max_file_bytes: the file size limit let it in
    (tmp_path / "bomb.docx").write_bytes(bomb)
    write_docx(tmp_path / "title-only.docx", [("Title", "Backup Standard")])

    scan = scan_vault(tmp_path)

    assert [doc.doc_id for doc in scan.documents] == ["good.docx"]
    reasons = {s.path: s.reason for s in scan.skipped}
    assert reasons["bomb.docx"].startswith("DOCX package that unpacks to ")
    assert reasons["bomb.docx"].endswith(f"(more than {MAX_UNPACKED_BYTES}): a compression bomb?")
    assert reasons["title-only.docx"] == "DOCX document without text"
