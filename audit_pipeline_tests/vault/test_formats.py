"""PDF, HTML and DOCX vault files: real files written into tmp_path, read, chunked, indexed,
cited and stored like Markdown."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit_pipeline.assertions import AssertionSettings, VaultCatalog, verify_citations
from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.runs.input_tables import write_vault_chunks, write_vault_documents
from audit_pipeline.targets.cited_sources import citation_from_label, parse_citations
from audit_pipeline.vault.chunking import chunk_documents
from audit_pipeline.vault.documents import VaultDocument, scan_vault
from audit_pipeline.vault.formats import ConversionError, convert
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.vault.helpers import (
    pdf_bytes,
    write_docx,
    write_encrypted_pdf,
    write_image_only_pdf,
    write_pdf,
)

DETECTION = (
    "Alerts are triaged by the on-call engineer within 15 minutes of firing. The engineer "
    "opens a ticket, records the alert source and assigns a severity before any other step."
)
CONTAINMENT = (
    "Affected hosts are isolated from the network before any forensic copy is taken. "
    "Credentials used on an isolated host are rotated within one business day."
)
HANDBOOK = [
    [("h1", "Example Incident Handbook"), ("h2", "Detection"), ("p", DETECTION)],
    [("h2", "Containment"), ("p", CONTAINMENT)],
]

SUPPORT_PAGE = """<!DOCTYPE html>
<html><head><title>Support | Example Corp</title>
<script>window.analytics = {id: 'UA-TRACKER-42'}; trackPageView('support');</script>
<style>.nav { color: red }</style></head>
<body>
<header><nav><a href="/pricing">Pricing</a> <a href="/careers">Careers at Example</a>
<a href="/login">Log in</a></nav></header>
<div class="cookie-banner">We use cookies to improve your experience. Accept all cookies</div>
<main><article>
<h1>Example Support Policy</h1>
<p>This page explains how Example Corp supports the customers of its billing platform and how
quickly each kind of request is answered by the support team.</p>
<h2>Support Hours</h2>
<p>Support is available from 08:00 to 20:00 on business days in the customer's region, and
around the clock for outages reported by Enterprise customers.</p>
<h2>Response Times</h2>
<p>An outage ticket receives a first response within 30 minutes; any other ticket receives one
within one business day of being opened.</p>
</article></main>
<footer><p>Copyright 2026 Example Corp. All rights reserved.</p>
<a href="/privacy">Privacy notice</a> <a href="/newsletter">Subscribe to our newsletter</a></footer>
<script src="/app.js"></script><script>document.title = 'Injected by script';</script>
</body></html>
"""
NOISE = (
    "Pricing",
    "Careers at Example",
    "Log in",
    "UA-TRACKER-42",
    "trackPageView",
    "Accept all cookies",
    "All rights reserved",
    "newsletter",
    "Injected by script",
    "color: red",
)


@pytest.fixture
def pdf_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    write_pdf(vault / "handbook.pdf", HANDBOOK, title="Incident Handbook")
    (vault / "notes.md").write_text("# Notes\n\nA plain Markdown file beside the PDF.\n")
    return vault


def _document(vault: Path, doc_id: str) -> VaultDocument:
    return next(doc for doc in scan_vault(vault).documents if doc.doc_id == doc_id)


def test_a_two_page_pdf_is_indexed_with_its_page_numbers(
    pdf_vault: Path, tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    document = _document(pdf_vault, "handbook.pdf")
    assert (document.source_format, document.page_count) == ("pdf", 2)
    assert document.title == "Example Incident Handbook"  # the first heading, not metadata
    # Headings drawn in larger fonts became Markdown headings; the running header and the
    # "Page N of 2" footer were dropped.
    assert "# Example Incident Handbook\n" in document.text
    assert "\n## Containment\n" in document.text
    assert "Example Corp - Internal" not in document.text and "of 2" not in document.text
    page_2 = document.text[document.page_starts[1] :]
    assert page_2.startswith("## Containment") and "forensic copy" in page_2

    chunks = [c for c in chunk_documents(scan_vault(pdf_vault).documents)]
    by_section = {c.section: c for c in chunks if c.doc_id == "handbook.pdf"}
    assert set(by_section) == {
        "Example Incident Handbook > Detection (p.1)",
        "Example Incident Handbook > Containment (p.2)",
    }
    containment = by_section["Example Incident Handbook > Containment (p.2)"]
    assert (containment.first_page, containment.last_page) == (2, 2)
    assert containment.section_path == ("Example Incident Handbook", "Containment")
    assert document.text[containment.start : containment.end] == containment.text
    notes = next(c for c in chunks if c.doc_id == "notes.md")
    assert (notes.first_page, notes.section) == (None, "Notes")

    index = VaultIndex(tmp_path / "vault.lance", embedder)
    index.sync(chunks)
    hit = HybridRetriever(index).search("Are affected hosts isolated before a forensic copy?")[0]
    assert hit.document == "handbook.pdf" and hit.section.endswith("(p.2)")
    assert document.text[hit.start : hit.end] == hit.text
    # What the vault bot cites for this hit: the file and the page.
    assert f"{hit.document}#{hit.section}".startswith("handbook.pdf#") and "p.2" in hit.section


def test_a_citation_of_page_2_verifies_against_page_2(pdf_vault: Path) -> None:
    catalog = VaultCatalog.from_scan(scan_vault(pdf_vault))
    settings = AssertionSettings()
    answer = (
        "Affected hosts are isolated before a forensic copy is taken [source: handbook.pdf#p.2]."
    )
    check = verify_citations(
        parse_citations(answer),
        catalog,
        settings,
        required_source="handbook.pdf",
        must_contain=["p.2"],
    )
    assert check.errors == 0 and check.verified_doc_ids == ("handbook.pdf",)
    assert check.verdicts[0].levels[2].detail == "p.2 of handbook.pdf exists"
    assert check.source is not None and check.source.passed

    def verified(label: str) -> bool:
        return verify_citations([citation_from_label(label)], catalog, settings).errors == 0

    assert verified("handbook.pdf#Containment (p.2)")  # the vault bot's form
    assert verified("handbook.pdf#page=2") and verified("handbook.pdf#pp. 1-2")
    assert verified("handbook.pdf#Detection, p. 1")
    assert not verified("handbook.pdf#Containment (p.1)")  # that section is on page 2
    assert not verified("handbook.pdf#Detection (p.2)")
    assert not verified("notes.md#p.2")  # a Markdown file has no pages
    failed = verify_citations([citation_from_label("handbook.pdf#p.3")], catalog, settings)
    assert (
        "handbook.pdf has 2 page(s); the citation names p.3"
        in failed.outcome(require_one=True).detail
    )


def test_html_keeps_the_main_content_and_drops_scripts_navigation_and_footer(
    tmp_path: Path,
) -> None:
    (tmp_path / "support.html").write_text(SUPPORT_PAGE, encoding="utf-8")
    document = _document(tmp_path, "support.html")
    assert document.source_format == "html" and document.page_starts == ()
    assert document.title == "Example Support Policy"
    for noise in NOISE:
        assert noise not in document.text, noise
    chunks = chunk_documents([document])
    assert [c.section for c in chunks] == [
        "Example Support Policy",
        "Example Support Policy > Support Hours",
        "Example Support Policy > Response Times",
    ]
    assert "within 30 minutes" in chunks[2].text
    assert not any(noise in chunk.text for chunk in chunks for noise in NOISE)


def test_docx_headings_become_sections(tmp_path: Path) -> None:
    write_docx(
        tmp_path / "standard.docx",
        [
            ("Title", "Example Logging Standard"),
            ("Normal", "This standard sets how long Example Corp keeps its logs."),
            ("Heading 1", "Retention"),
            ("Normal", "Security logs are kept for 13 months in immutable storage."),
            ("Heading 2", "Exceptions"),
            ("List Bullet", "Debug logs are kept for 7 days."),
            ("List Bullet", "Audit trails of deleted tenants are kept for 6 years."),
            ("Heading 1", "Access"),
            ("table", "Role|Access;Security analyst|Read;Site reliability engineer|None"),
        ],
    )
    document = _document(tmp_path, "standard.docx")
    assert document.source_format == "docx" and document.title == "Example Logging Standard"
    assert "\n- Debug logs are kept for 7 days.\n- Audit trails" in document.text
    assert "| Security analyst | Read |" in document.text
    chunks = chunk_documents([document])
    assert [c.section_path for c in chunks] == [
        ("Example Logging Standard",),
        ("Example Logging Standard", "Retention"),
        ("Example Logging Standard", "Retention", "Exceptions"),
        ("Example Logging Standard", "Access"),
    ]
    assert "13 months" in chunks[1].text and "6 years" in chunks[2].text


def test_broken_encrypted_and_image_only_files_are_skipped_with_the_reason(
    tmp_path: Path,
) -> None:
    good = pdf_bytes(HANDBOOK)
    (tmp_path / "good.pdf").write_bytes(good)
    (tmp_path / "corrupt.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    (tmp_path / "truncated.pdf").write_bytes(good[: len(good) // 3])
    (tmp_path / "renamed.pdf").write_text("# Not a PDF\n\nMarkdown saved as .pdf\n")
    write_encrypted_pdf(tmp_path / "locked.pdf", HANDBOOK, user_password="s3cret")
    write_encrypted_pdf(tmp_path / "owner-only.pdf", HANDBOOK, user_password="")
    write_image_only_pdf(tmp_path / "scan.pdf")
    (tmp_path / "locked.docx").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512)
    (tmp_path / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip archive")
    (tmp_path / "app-shell.html").write_text(  # a page saved before its script rendered it
        "<html><head><script src='/app.js'></script></head><body><div id='root'></div>"
        "<script>render(document.getElementById('root'));</script></body></html>"
    )

    scan = scan_vault(tmp_path)  # no exception: the scan goes on past every bad file

    assert [doc.doc_id for doc in scan.documents] == ["good.pdf", "owner-only.pdf"]
    reasons = {skipped.path: skipped.reason for skipped in scan.skipped}
    assert reasons["corrupt.pdf"].startswith("damaged PDF (")
    assert reasons["truncated.pdf"].startswith("damaged PDF (")
    assert reasons["renamed.pdf"].startswith("damaged PDF (")
    assert reasons["locked.pdf"] == "encrypted PDF: a password is required to open it"
    assert reasons["scan.pdf"] == (
        "PDF without a text layer (1 page, image-only or scanned; OCR is not done)"
    )
    assert reasons["locked.docx"].startswith("not a DOCX package: a password-protected")
    assert reasons["broken.docx"].startswith("damaged DOCX (")
    assert reasons["app-shell.html"] == "HTML page without main text content"
    with pytest.raises(ConversionError, match="damaged PDF"):
        convert("corrupt.pdf", (tmp_path / "corrupt.pdf").read_bytes())


def test_the_warehouse_keeps_the_indexed_text_and_the_page_map(
    pdf_vault: Path, tmp_path: Path
) -> None:
    scan = scan_vault(pdf_vault)
    warehouse = Warehouse(tmp_path / "audit.duckdb")
    warehouse.migrate()
    write_vault_documents(warehouse, scan)
    write_vault_chunks(warehouse, chunk_documents(scan.documents))

    documents = warehouse.query(
        "SELECT doc_id, source_format, text, page_starts FROM vault_documents ORDER BY doc_id"
    )
    pdf, notes = documents.to_dict("records")
    handbook = _document(pdf_vault, "handbook.pdf")
    assert (pdf["source_format"], pdf["text"]) == ("pdf", handbook.text)
    assert list(pdf["page_starts"]) == list(handbook.page_starts)
    assert notes["source_format"] == "markdown" and notes["page_starts"] is None
    # Chunk offsets point into the stored text, and the chunk knows its page.
    row = warehouse.query(
        "SELECT c.first_page, c.last_page, c.text = substr(d.text, c.start_char + 1, "
        "c.end_char - c.start_char) AS maps_back FROM vault_chunks c JOIN vault_documents d "
        "USING (doc_id) WHERE c.section LIKE '%Containment%'"
    ).to_dict("records")
    assert row == [{"first_page": 2, "last_page": 2, "maps_back": True}]
