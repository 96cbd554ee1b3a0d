"""Reading the vault: which files become documents, and which are skipped and why.

A vault is a directory of trusted documents maintained by people, so it will contain the odd
binary, a file saved in Latin-1 or a stray multi-gigabyte export. Those are skipped with a
warning that names them; the audit goes on with the rest. A vault that is missing, or that
yields no document at all, is an error: auditing against nothing would pass every claim.

PDF, HTML and DOCX files are converted to Markdown-like text (``vault.formats``) as they are
read; from then on a document is its text, whatever the file was, and a damaged, encrypted or
image-only file is skipped like a binary one, with the reason. A converted document that lost
more than ``DROPPED_SHARE_WARNING`` of its text as page furniture is kept but listed
(``VaultScan.text_dropped``), as a heading mistaken for a running header would be a silent loss.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from audit_pipeline.vault.formats import ConversionError, converter_for

# The file types read by default: plain text as is, the rest through a converter.
DEFAULT_INCLUDE: tuple[str, ...] = (
    "*.md",
    "*.markdown",
    "*.txt",
    "*.pdf",
    "*.html",
    "*.htm",
    "*.docx",
)
_BINARY_SNIFF_BYTES = 8192
_MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
# More than this share of a file's text left out as running headers and footers is reported.
DROPPED_SHARE_WARNING = 0.1


class VaultError(RuntimeError):
    """The vault cannot be used at all (missing, not a directory, or nothing readable)."""


@dataclass(frozen=True)
class VaultDocument:
    """One trusted document. ``doc_id`` is its POSIX path relative to the vault root.

    ``text`` is what is chunked and indexed: the file itself for Markdown and text, the
    converted text for PDF, HTML and DOCX (``source_format`` says which), and every offset of
    a chunk points into it. ``page_starts[i]`` is the offset where page ``i + 1`` begins (PDF;
    empty for formats without pages), so a chunk knows its pages and a citation can name one.
    """

    doc_id: str
    title: str
    content_hash: str
    size_bytes: int
    modified_at: datetime
    text: str
    source_format: str = "text"
    page_starts: tuple[int, ...] = ()
    # Share of the file's text the converter left out as page furniture (PDF); None: not counted.
    dropped_share: float | None = None

    @property
    def page_count(self) -> int:
        return len(self.page_starts)

    @property
    def dropped_warning(self) -> str | None:
        """What to tell the user when more than a small share of the text was left out."""
        share = self.dropped_share
        if share is None or share <= DROPPED_SHARE_WARNING:
            return None
        return (
            f"{share:.0%} of its text left out as running headers and footers (lines that "
            "repeat at the same place on most pages); check that none of it is content"
        )


@dataclass(frozen=True)
class SkippedFile:
    """A file left out of the vault, with the reason shown to the user."""

    path: str
    reason: str


@dataclass(frozen=True)
class VaultScan:
    """The result of reading a vault: the documents and the files left out."""

    root: Path
    documents: tuple[VaultDocument, ...]
    skipped: tuple[SkippedFile, ...] = field(default=())

    @property
    def text_dropped(self) -> tuple[VaultDocument, ...]:
        """Documents that lost more than a small share of their text in conversion."""
        return tuple(doc for doc in self.documents if doc.dropped_warning is not None)

    @property
    def state_hash(self) -> str:
        """One hash for the whole vault state; equal states give equal hashes."""
        digest = hashlib.sha256()
        for doc in self.documents:
            digest.update(f"{doc.doc_id}\0{doc.content_hash}\n".encode())
        return digest.hexdigest()


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _title(text: str, fallback: str) -> str:
    match = _H1.search(text)
    return match.group(1).strip() if match else fallback


def _outside(path: str | Path, root_real: str) -> bool:
    real = os.path.realpath(path)
    return real != root_real and not real.startswith(root_real.rstrip(os.sep) + os.sep)


def _walk(root: Path, skipped: list[SkippedFile], follow_external: bool = False) -> Iterator[Path]:
    """Files under ``root`` in a stable order, following directory links once.

    ``os.walk(followlinks=True)`` would loop forever on a link to an ancestor, so directories
    are tracked by their real path and a repeat is reported instead of entered. A link that
    leads out of the vault is skipped unless ``follow_external``: the vault is what the audit
    trusts, and a link to ``/etc`` or a home folder must not quietly become trusted evidence.
    """
    root_real = os.path.realpath(root)
    seen_dirs: set[str] = set()
    stack = [root]
    while stack:
        directory = stack.pop()
        real = os.path.realpath(directory)
        if real in seen_dirs:
            skipped.append(
                SkippedFile(_rel(root, directory), "symlink loop: directory already visited")
            )
            continue
        seen_dirs.add(real)
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError as error:
            skipped.append(
                SkippedFile(_rel(root, directory), f"unreadable directory: {error.strerror}")
            )
            continue
        subdirs: list[Path] = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            try:
                if entry.is_symlink() and not follow_external and _outside(path, root_real):
                    target = os.path.realpath(path)
                    skipped.append(
                        SkippedFile(
                            _rel(root, path),
                            f"symlink to {target}, outside the vault: not followed "
                            "(vault.follow_external_symlinks: true follows it)",
                        )
                    )
                    continue
                if entry.is_dir(follow_symlinks=True):
                    subdirs.append(path)
                elif entry.is_file(follow_symlinks=True):
                    yield path
                elif entry.is_symlink():
                    skipped.append(SkippedFile(_rel(root, path), "broken or looping symlink"))
            except OSError as error:  # ELOOP on a self-referencing link
                skipped.append(SkippedFile(_rel(root, path), f"unreadable: {error.strerror}"))
        stack.extend(reversed(subdirs))


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix() if path != root else "."


def _read_document(root: Path, path: Path, max_bytes: int) -> VaultDocument | SkippedFile:
    rel = _rel(root, path)
    try:
        stat = path.stat()
        if stat.st_size > max_bytes:
            return SkippedFile(
                rel, f"larger than the {max_bytes}-byte limit ({stat.st_size} bytes)"
            )
        if stat.st_size == 0:
            return SkippedFile(rel, "empty file")
        raw = path.read_bytes()
    except OSError as error:
        return SkippedFile(rel, f"unreadable: {error.strerror}")
    modified_at = datetime.fromtimestamp(stat.st_mtime, tz=UTC)
    converter = converter_for(path.name)
    if converter is not None:
        try:
            converted = converter(raw)
        except ConversionError as error:
            return SkippedFile(rel, str(error))
        return VaultDocument(
            doc_id=rel,
            title=_title(converted.text, converted.title or path.stem),
            content_hash=content_hash(converted.text),
            size_bytes=stat.st_size,
            modified_at=modified_at,
            text=converted.text,
            source_format=converted.source_format,
            page_starts=converted.page_starts,
            dropped_share=converted.dropped_share,
        )
    if b"\0" in raw[:_BINARY_SNIFF_BYTES]:
        return SkippedFile(rel, "binary file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return SkippedFile(rel, f"not valid UTF-8 (byte {error.start})")
    text = text.removeprefix("\ufeff")
    if not text.strip():
        return SkippedFile(rel, "contains only whitespace")
    return VaultDocument(
        doc_id=rel,
        title=_title(text, path.stem),
        content_hash=content_hash(text),
        size_bytes=stat.st_size,
        modified_at=modified_at,
        text=text,
        source_format="markdown" if path.suffix.lower() in _MARKDOWN_SUFFIXES else "text",
    )


def read_document(root: str | Path, doc_id: str, max_bytes: int) -> VaultDocument | SkippedFile:
    """One vault document read again as a scan reads it (its ``content_hash`` compares with
    the scan's); a file gone or no longer readable is a ``SkippedFile`` saying why."""
    root = Path(root)
    path = root / doc_id
    if not path.is_file():
        return SkippedFile(doc_id, "deleted")
    return _read_document(root, path, max_bytes)


def check_vault(
    root: str | Path,
    include: Sequence[str] = DEFAULT_INCLUDE,
    follow_external_symlinks: bool = False,
) -> None:
    """Cheap up-front check (no file is read): the vault exists, is a directory and holds a
    non-empty file matching ``include``. Raises ``VaultError`` otherwise."""
    root = Path(root)
    if not root.exists():
        raise VaultError(f"vault directory not found: {root}")
    if not root.is_dir():
        raise VaultError(f"vault path is not a directory: {root}")
    for path in _walk(root, [], follow_external_symlinks):
        if any(fnmatch.fnmatch(path.name.lower(), pattern) for pattern in include):
            try:
                if path.stat().st_size > 0:
                    return
            except OSError:
                continue
    raise VaultError(f"vault {root} has no non-empty file matching {list(include)}")


def scan_vault(
    root: str | Path,
    include: Sequence[str] = DEFAULT_INCLUDE,
    max_file_bytes: int = 2_000_000,
    follow_external_symlinks: bool = False,
) -> VaultScan:
    """Read every matching file under ``root``.

    Raises ``VaultError`` when the vault is missing or yields no readable document.
    """
    root = Path(root)
    if not root.exists():
        raise VaultError(f"vault directory not found: {root}")
    if not root.is_dir():
        raise VaultError(f"vault path is not a directory: {root}")
    skipped: list[SkippedFile] = []
    documents: list[VaultDocument] = []
    for path in _walk(root, skipped, follow_external_symlinks):
        if not any(fnmatch.fnmatch(path.name.lower(), pattern) for pattern in include):
            continue
        result = _read_document(root, path, max_file_bytes)
        if isinstance(result, VaultDocument):
            documents.append(result)
        else:
            skipped.append(result)
    if not documents:
        detail = "; ".join(f"{s.path}: {s.reason}" for s in skipped[:5])
        raise VaultError(
            f"vault {root} contains no readable document matching {list(include)}"
            + (f" ({len(skipped)} skipped: {detail})" if skipped else "")
        )
    documents.sort(key=lambda doc: doc.doc_id)
    return VaultScan(root=root, documents=tuple(documents), skipped=tuple(skipped))
