"""Real PDF, DOCX and HTML files for the vault format tests, written into a test's tmp_path.

PDFs are drawn with fpdf2 (a dev dependency) the way policy PDFs are: a running header and
footer on every page, headings in a larger bold font, body text wrapped by the layout engine.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from fpdf import FPDF

# A page is a list of (kind, text) blocks: kind "h1", "h2" or "p".
Page = Sequence[tuple[str, str]]
_SIZES = {"h1": 18.0, "h2": 13.0, "p": 10.5}


class _Pdf(FPDF):
    def header(self) -> None:
        self.set_font("Helvetica", "", 8)
        self.cell(0, 6, "Example Corp - Internal", align="R")
        self.ln(10)

    def footer(self) -> None:
        self.set_y(-15)
        self.set_font("Helvetica", "", 8)
        self.cell(0, 6, f"Page {self.page_no()} of {{nb}}", align="C")


def pdf_bytes(pages: Sequence[Page], title: str | None = None) -> bytes:
    pdf = _Pdf(format="A4")
    if title:
        pdf.set_title(title)
    pdf.set_auto_page_break(True, margin=20)
    for page in pages:
        pdf.add_page()
        for kind, text in page:
            pdf.set_font("Helvetica", "" if kind == "p" else "B", _SIZES[kind])
            pdf.multi_cell(0, _SIZES[kind] * 0.5, text, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
    return bytes(pdf.output())


def write_pdf(path: Path, pages: Sequence[Page], title: str | None = None) -> Path:
    path.write_bytes(pdf_bytes(pages, title))
    return path


def write_encrypted_pdf(path: Path, pages: Sequence[Page], user_password: str) -> Path:
    """The PDF encrypted with AES-256; an empty ``user_password`` opens without one."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(pages))))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="AES-256")
    with path.open("wb") as handle:
        writer.write(handle)
    return path


def write_image_only_pdf(path: Path) -> Path:
    """A "scanned" page: an image and drawn shapes, no text layer."""
    from PIL import Image

    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.image(Image.new("RGB", (200, 260), (235, 235, 220)), x=20, y=20, w=170)
    pdf.rect(30, 40, 120, 8, style="F")
    path.write_bytes(bytes(pdf.output()))
    return path


def write_docx(path: Path, blocks: Sequence[tuple[str, str]]) -> Path:
    """A DOCX from (style, text) blocks: a paragraph style name ("Title", "Heading 1",
    "List Bullet", "Normal") or "table" with cells separated by "|" and rows by ";"."""
    import docx

    document = docx.Document()
    for style, text in blocks:
        if style == "table":
            rows = [row.split("|") for row in text.split(";")]
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, row in enumerate(rows):
                for c, value in enumerate(row):
                    table.cell(r, c).text = value
        else:
            document.add_paragraph(text, style=style)
    document.save(str(path))
    return path
