"""Speed and fidelity of the vault's PDF, HTML and DOCX converters against the alternatives.

The seven Markdown documents of the sample vault are rendered into each format the way such
files come out of real tools: a PDF with a running header, a "Page N of M" footer and bold
headings in larger fonts (fpdf2), an HTML page with navigation, a cookie banner, analytics
scripts, a related-articles box and a footer, and a Word file with Title / Heading N styles,
bullet lists and tables (python-docx). Since the source text is known, each converter's output
is checked against it:

- text recall: share of the source sentences (5 words or more) found verbatim in the output
  (whitespace and Markdown emphasis aside);
- headings: share of the source headings that come out as a ``#`` line, which is what the
  heading-aware chunker cuts on;
- noise: share of the page furniture (header and footer lines, navigation, script, cookie and
  footer strings) that leaks into the output;
- pages: for the PDF, share of the sentences found on the page they were printed on (needs a
  converter that keeps page boundaries);
- speed: milliseconds per document (mean of ``--repeat`` runs) and PDF pages per second.

Candidates that are not installed are listed as such: the project ships pypdf, trafilatura and
python-docx; ``pip install "markitdown[pdf,docx]" pypdfium2`` adds the others.

    .venv/bin/python -m benchmarks.vault_formats [--repeat 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import html
import importlib.util
import io
import json
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit_pipeline.vault.formats.converted import page_at
from audit_pipeline.vault.formats.docx import convert_docx
from audit_pipeline.vault.formats.html import convert_html
from audit_pipeline.vault.formats.pdf import convert_pdf

SAMPLE_VAULT = Path(__file__).resolve().parent.parent / "data" / "sample-vault"
_SPACES = re.compile(r"\s+")
_SENTENCE = re.compile(r"(?<=[.!?;:])\s+(?=[A-Z(])")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$")
_PDF_NOISE = ("Tallyhawk, Inc. - Confidential", "Printed copies are uncontrolled")
_HTML_NOISE = (
    "Start free trial",
    "Customer stories",
    "Accept all cookies",
    "TH-ANALYTICS-7781",
    "dataLayer",
    "Related articles",
    "How we scaled metering",
    "All rights reserved",
    "Terms of Service",
    "Subscribe to the Tallyhawk newsletter",
)


@dataclass
class Block:
    """One block of a source document: a heading (level > 0), paragraph, bullet or table row."""

    kind: str  # heading, paragraph, bullet, row
    text: str
    level: int = 0
    cells: list[str] = field(default_factory=list)
    page: int | None = None  # the PDF page it was printed on (when it stayed on one)


def _plain(text: str) -> str:
    return _SPACES.sub(" ", text.replace("**", "").replace("`", "")).strip()


def parse_markdown(text: str) -> list[Block]:
    """The blocks of one sample-vault document (its simple Markdown only)."""
    blocks: list[Block] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append(Block("paragraph", _plain(" ".join(paragraph))))
            paragraph.clear()

    for line in text.splitlines():
        stripped = line.strip()
        heading = _HEADING.match(stripped)
        if heading:
            flush()
            blocks.append(Block("heading", _plain(heading.group(2)), len(heading.group(1))))
        elif stripped.startswith(("- ", "* ")) or re.match(r"^\d+\.\s", stripped):
            flush()
            blocks.append(Block("bullet", _plain(re.sub(r"^(?:[-*]|\d+\.)\s+", "", stripped))))
        elif stripped.startswith("|"):
            flush()
            cells = [_plain(c) for c in stripped.strip("|").split("|")]
            if not all(set(c) <= set("-: ") for c in cells):
                blocks.append(Block("row", " | ".join(cells), cells=cells))
        elif not stripped:
            flush()
        else:
            paragraph.append(stripped)
    flush()
    return blocks


def load_corpus() -> dict[str, list[Block]]:
    return {
        path.stem: parse_markdown(path.read_text(encoding="utf-8"))
        for path in sorted(SAMPLE_VAULT.glob("*.md"))
    }


# -- rendering ------------------------------------------------------------------------------


def _latin1(text: str) -> str:
    """fpdf2's core fonts are Latin-1: typographic characters become their ASCII forms."""
    table = str.maketrans(dict.fromkeys("\u2013\u2014", "-") | dict.fromkeys("\u2018\u2019", "'"))
    table |= str.maketrans(dict.fromkeys("\u201c\u201d", '"'))
    return text.translate(table).encode("latin-1", "replace").decode("latin-1")


def render_pdf(blocks: list[Block]) -> bytes:
    from fpdf import FPDF

    class Pdf(FPDF):
        def header(self) -> None:
            self.set_font("Helvetica", "", 8)
            self.cell(0, 6, _PDF_NOISE[0], align="R")
            self.ln(10)

        def footer(self) -> None:
            self.set_y(-15)
            self.set_font("Helvetica", "", 8)
            self.cell(0, 6, f"{_PDF_NOISE[1]} - Page {self.page_no()} of {{nb}}", align="C")

    pdf = Pdf(format="A4")
    pdf.set_auto_page_break(True, margin=20)
    pdf.add_page()
    sizes = {1: 18.0, 2: 14.0, 3: 12.0}
    for block in blocks:
        first = pdf.page_no()
        if block.kind == "heading":
            pdf.set_font("Helvetica", "B", sizes.get(block.level, 12.0))
            pdf.multi_cell(0, 8, _latin1(block.text), new_x="LMARGIN", new_y="NEXT")
        else:
            pdf.set_font("Helvetica", "", 10)
            prefix = "- " if block.kind == "bullet" else ""
            text = "    ".join(block.cells) if block.kind == "row" else block.text
            pdf.multi_cell(0, 5, _latin1(prefix + text), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)
        block.page = first if pdf.page_no() == first else None
    return bytes(pdf.output())


def render_html(blocks: list[Block]) -> bytes:
    body: list[str] = []
    in_list = in_table = False
    for block in blocks:
        if in_list and block.kind != "bullet":
            body.append("</ul>")
            in_list = False
        if in_table and block.kind != "row":
            body.append("</table>")
            in_table = False
        text = html.escape(block.text)
        if block.kind == "heading":
            body.append(f"<h{block.level}>{text}</h{block.level}>")
        elif block.kind == "bullet":
            body.append(("" if in_list else "<ul>") + f"<li>{text}</li>")
            in_list = True
        elif block.kind == "row":
            cells = "".join(f"<td>{html.escape(c)}</td>" for c in block.cells)
            body.append(("" if in_table else "<table>") + f"<tr>{cells}</tr>")
            in_table = True
        else:
            body.append(f"<p>{text}</p>")
    body.append("</ul>" if in_list else "</table>" if in_table else "")
    n = _HTML_NOISE
    page = f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Trust Center | Tallyhawk</title><style>.nav a{{margin:0 1em}}</style>
<script>window.{n[4]} = []; track('{n[3]}');</script></head><body>
<header><a href="/">Tallyhawk</a><nav><ul><li><a href="/product">Product</a></li>
<li><a href="/customers">{n[1]}</a></li><li><a href="/signup">{n[0]}</a></li></ul></nav></header>
<div class="cookie-banner" role="dialog">We use cookies. <button>{n[2]}</button></div>
<main><article>{"".join(body)}</article></main>
<aside><h3>{n[5]}</h3><ul><li><a href="/blog/1">{n[6]} to a billion events</a></li></ul></aside>
<footer><div>{n[9]} for product news.</div><nav><a href="/terms">{n[8]}</a></nav>
<p>&copy; 2026 Tallyhawk, Inc. {n[7]}.</p></footer>
<script src="/static/app.js"></script></body></html>"""
    return page.encode("utf-8")


def render_docx(blocks: list[Block]) -> bytes:
    import docx

    document = docx.Document()
    table: Any = None
    for block in blocks:
        if block.kind != "row":
            table = None
        if block.kind == "heading":
            style = "Title" if block.level == 1 else f"Heading {block.level - 1}"
            document.add_paragraph(block.text, style=style)
        elif block.kind == "bullet":
            document.add_paragraph(block.text, style="List Bullet")
        elif block.kind == "row":
            if table is None or len(block.cells) != len(table.columns):
                table = document.add_table(rows=0, cols=len(block.cells))
            cells = table.add_row().cells
            for cell, value in zip(cells, block.cells, strict=True):
                cell.text = value
        else:
            document.add_paragraph(block.text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


# -- candidates -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Output:
    text: str
    page_starts: tuple[int, ...] = ()


def _markitdown(suffix: str) -> Callable[[bytes], Output]:
    from markitdown import MarkItDown, StreamInfo

    converter = MarkItDown(enable_plugins=False)

    def run(raw: bytes) -> Output:
        info = StreamInfo(extension=suffix)
        return Output(converter.convert_stream(io.BytesIO(raw), stream_info=info).markdown)

    return run


def _pypdfium2(raw: bytes) -> Output:
    import pypdfium2

    document = pypdfium2.PdfDocument(raw)
    parts: list[str] = []
    starts: list[int] = []
    offset = 0
    for page in document:
        text = page.get_textpage().get_text_bounded().replace("\r\n", "\n")
        starts.append(offset)
        parts.append(text)
        offset += len(text) + 2
    return Output("\n\n".join(parts), tuple(starts))


def _ours(convert: Callable[[bytes], Any]) -> Callable[[bytes], Output]:
    def run(raw: bytes) -> Output:
        converted = convert(raw)
        return Output(converted.text, converted.page_starts)

    return run


CANDIDATES: dict[str, list[tuple[str, str | None, Callable[[], Callable[[bytes], Output]]]]] = {
    "pdf": [
        ("pypdf (shipped: vault.formats.pdf)", None, lambda: _ours(convert_pdf)),
        ("pypdfium2 (text per page)", "pypdfium2", lambda: _pypdfium2),
        ("markitdown (pdfminer/pdfplumber)", "markitdown", lambda: _markitdown(".pdf")),
    ],
    "html": [
        ("trafilatura (shipped: vault.formats.html)", None, lambda: _ours(convert_html)),
        ("markitdown (markdownify)", "markitdown", lambda: _markitdown(".html")),
    ],
    "docx": [
        ("python-docx (shipped: vault.formats.docx)", None, lambda: _ours(convert_docx)),
        ("markitdown (mammoth)", "markitdown", lambda: _markitdown(".docx")),
    ],
}


# -- scoring --------------------------------------------------------------------------------


def _normal(text: str) -> str:
    text = text.replace("**", "").replace("\\|", "|").replace("\\", "")
    return _SPACES.sub(" ", text.replace("`", "")).strip()


def _sentences(blocks: list[Block], printed: Callable[[str], str]) -> list[tuple[str, int | None]]:
    found: list[tuple[str, int | None]] = []
    for block in blocks:
        if block.kind in ("paragraph", "bullet"):
            for sentence in _SENTENCE.split(block.text):
                if len(sentence.split()) >= 5:
                    found.append((_normal(printed(sentence)), block.page))
    return found


def _heading_lines(text: str) -> set[str]:
    return {
        _normal(match.group(2)).rstrip("#").strip()
        for line in text.splitlines()
        if (match := _HEADING.match(line.strip()))
    }


def score(fmt: str, blocks: list[Block], output: Output) -> dict[str, float | None]:
    # The PDF was printed in Latin-1 (dashes and quotes simplified): compare with that.
    printed: Callable[[str], str] = _latin1 if fmt == "pdf" else str
    sentences = _sentences(blocks, printed)
    # Offsets in the squeezed text map back to the page map through the original text.
    squeezed_chars: list[int] = []
    pieces: list[str] = []
    previous_space = False
    for index, char in enumerate(output.text):
        if char in "*`\\":  # emphasis, code marks and escapes, as _normal drops them
            continue
        if char.isspace():
            if previous_space:
                continue
            char, previous_space = " ", True
        else:
            previous_space = False
        pieces.append(char)
        squeezed_chars.append(index)
    squeezed = "".join(pieces)
    hits = 0
    on_page = paged = 0
    for sentence, page in sentences:
        position = squeezed.find(sentence)
        if position < 0:
            continue
        hits += 1
        if page is not None and output.page_starts:
            paged += 1
            on_page += page_at(output.page_starts, squeezed_chars[position]) == page
    headings = [_normal(printed(b.text)) for b in blocks if b.kind == "heading"]
    marked = _heading_lines(output.text)
    noise = _PDF_NOISE if fmt == "pdf" else _HTML_NOISE if fmt == "html" else ()
    return {
        "text_recall": hits / len(sentences) if sentences else None,
        "headings": sum(h in marked for h in headings) / len(headings) if headings else None,
        "noise": sum(n in output.text for n in noise) / len(noise) if noise else None,
        "pages": on_page / paged if paged else None,
    }


RENDER = {"pdf": render_pdf, "html": render_html, "docx": render_docx}


def measure(repeat: int) -> list[dict[str, Any]]:
    corpus = load_corpus()
    results: list[dict[str, Any]] = []
    for fmt, candidates in CANDIDATES.items():
        files = {name: RENDER[fmt](blocks) for name, blocks in corpus.items()}
        pages = 0
        if fmt == "pdf":
            from pypdf import PdfReader

            pages = sum(len(PdfReader(io.BytesIO(raw)).pages) for raw in files.values())
        for label, module, factory in candidates:
            row: dict[str, Any] = {"format": fmt, "converter": label, "documents": len(files)}
            if module is not None and importlib.util.find_spec(module) is None:
                results.append(row | {"error": f"{module} not installed"})
                continue
            run = factory()
            outputs = {name: run(raw) for name, raw in files.items()}  # warm-up, and scored
            timings = []
            for _ in range(repeat):
                start = time.perf_counter()
                for raw in files.values():
                    run(raw)
                timings.append(time.perf_counter() - start)
            seconds = statistics.mean(timings)
            scores = [score(fmt, corpus[name], out) for name, out in outputs.items()]
            for key in ("text_recall", "headings", "noise", "pages"):
                values = [s[key] for s in scores if s[key] is not None]
                row[key] = round(statistics.mean(values), 3) if values else None
            row["ms_per_document"] = round(1000 * seconds / len(files), 1)
            row["bytes"] = sum(len(raw) for raw in files.values())
            if pages:
                row["pages"] = row.pop("pages")
                row["pdf_pages"] = pages
                row["pages_per_s"] = round(pages / seconds, 1)
            results.append(row)
    return results


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) and value <= 1 else str(value)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per converter")
    parser.add_argument("--json", type=Path, dest="json_out", help="write results here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory():
        results = measure(max(args.repeat, 1))
    columns = ["format", "converter", "ms_per_document", "pages_per_s", "text_recall"]
    columns += ["headings", "noise", "pages"]
    print("  ".join(f"{c:<12}" if c != "converter" else f"{c:<42}" for c in columns))
    for row in results:
        if "error" in row:
            print(f"{row['format']:<12}  {row['converter']:<42}  ({row['error']})")
            continue
        cells = [_cell(row.get(c)) for c in columns]
        print("  ".join(f"{v:<12}" if i != 1 else f"{v:<42}" for i, v in enumerate(cells)))
    first = next(r for r in results if "error" not in r)
    print(f"\n{first['documents']} documents per format (the sample vault's Markdown, rendered)")
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps({"results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
