"""Heading-aware chunking with exact character offsets.

Chunks never cross a Markdown heading, so every chunk belongs to exactly one section path
(``Encryption Standard > Key Management > Rotation``): that is what a citation
``[source: file#section]`` points at, and what a verdict shows as its provenance. A section
longer than the target is cut into overlapping word windows, preferring to end a window at a
sentence end. ``document.text[chunk.start:chunk.end] == chunk.text`` always holds, so a span
found in a chunk maps straight back into the source file (into the converted text, for a PDF,
HTML or DOCX file). A chunk of a PDF knows its pages, and its section says them
(``Containment (p.2)``, or ``p.2`` where the PDF has no headings), so evidence and the vault
bot's citations read ``runbook.pdf#Containment (p.2)``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from audit_pipeline.vault.documents import VaultDocument
from audit_pipeline.vault.formats.converted import page_label, page_span

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_WORD = re.compile(r"\S+")
_SENTENCE_END = re.compile(r"[.!?:;][\"')\]]*$")


@dataclass(frozen=True)
class Chunk:
    chunk_id: str
    doc_id: str
    title: str
    section_path: tuple[str, ...]
    chunk_index: int
    text: str
    start: int
    end: int
    word_count: int
    doc_hash: str
    first_page: int | None = None  # 1-based pages of a paged (PDF) document, else None
    last_page: int | None = None

    @property
    def section(self) -> str:
        """The heading path, and for a paged document the pages: ``A > B (p.2)``."""
        heading = " > ".join(self.section_path)
        if self.first_page is None or self.last_page is None:
            return heading
        pages = page_label(self.first_page, self.last_page)
        return f"{heading} ({pages})" if heading else pages

    @property
    def embedding_text(self) -> str:
        """What gets embedded: the text with its document and section as context."""
        path = self.section_path
        context = " > ".join(path if path[:1] == (self.title,) else (self.title, *path))
        return f"{context}\n{self.text}"


@dataclass(frozen=True)
class _Section:
    path: tuple[str, ...]
    start: int
    end: int


def split_sections(text: str) -> list[_Section]:
    """Cut a Markdown text at its ATX headings, ignoring '#' lines inside code fences."""
    sections: list[_Section] = []
    path: list[tuple[int, str]] = []  # (level, heading) of the enclosing headings
    current_start = 0
    current_path: tuple[str, ...] = ()
    in_fence = False
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n")
        if _FENCE.match(stripped):
            in_fence = not in_fence
        elif not in_fence and (match := _HEADING.match(stripped)):
            sections.append(_Section(current_path, current_start, offset))
            level = len(match.group(1))
            path = [(lvl, name) for lvl, name in path if lvl < level]
            path.append((level, match.group(2).strip()))
            current_start, current_path = offset, tuple(name for _, name in path)
        offset += len(line)
    sections.append(_Section(current_path, current_start, len(text)))
    return [s for s in sections if text[s.start : s.end].strip()]


def _has_body(text: str, section: _Section) -> bool:
    """False for a section that holds only its heading line."""
    body = text[section.start : section.end].strip()
    return bool(body) and not (len(body.splitlines()) == 1 and _HEADING.match(body))


def _windows(words: list[re.Match[str]], target: int, overlap: int) -> Iterable[tuple[int, int]]:
    """Word-index windows of about ``target`` words overlapping by ``overlap`` words."""
    if len(words) <= target:
        yield 0, len(words)
        return
    start = 0
    while start < len(words):
        end = min(start + target, len(words))
        if end < len(words):
            # End on a sentence boundary in the last fifth of the window when there is one.
            floor = start + max(overlap + 1, int(target * 0.8))
            for candidate in range(end, floor, -1):
                if _SENTENCE_END.search(words[candidate - 1].group()):
                    end = candidate
                    break
        yield start, end
        if end >= len(words):
            return
        start = max(end - overlap, start + 1)


def chunk_id(doc_id: str, text: str) -> str:
    return hashlib.sha256(f"{doc_id}\0{text}".encode()).hexdigest()


def chunk_document(
    document: VaultDocument, target_words: int = 500, overlap_words: int = 50
) -> list[Chunk]:
    text = document.text
    chunks: list[Chunk] = []
    seen_ids: set[str] = set()
    for section in split_sections(text):
        if not _has_body(text, section):
            continue
        words = list(_WORD.finditer(text, section.start, section.end))
        for first, last in _windows(words, target_words, overlap_words):
            start, end = words[first].start(), words[last - 1].end()
            piece = text[start:end]
            identifier = chunk_id(document.doc_id, piece)
            if identifier in seen_ids:  # the same text twice in one file: keep ids unique
                identifier = chunk_id(document.doc_id, f"{piece}\0{start}")
            seen_ids.add(identifier)
            pages = page_span(document.page_starts, start, end)
            chunks.append(
                Chunk(
                    chunk_id=identifier,
                    doc_id=document.doc_id,
                    title=document.title,
                    section_path=section.path,
                    chunk_index=len(chunks),
                    text=piece,
                    start=start,
                    end=end,
                    word_count=last - first,
                    doc_hash=document.content_hash,
                    first_page=pages[0] if pages else None,
                    last_page=pages[1] if pages else None,
                )
            )
    return chunks


def chunk_documents(
    documents: Iterable[VaultDocument], target_words: int = 500, overlap_words: int = 50
) -> list[Chunk]:
    return [
        chunk
        for document in documents
        for chunk in chunk_document(document, target_words, overlap_words)
    ]
