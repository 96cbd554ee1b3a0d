"""What a citation can point at: the vault's files, their titles and text, and label aliases.

Bots cite in free text ("SOC 2 Type II Report", "Privacy Policy, Section 9") as often as by
file name, so a label is resolved like a person would: an explicit alias first, then the file
name, then the document title, each compared without case, spacing or punctuation. A label that
fits several documents is reported as ambiguous rather than guessed, because a wrong guess
would verify a citation against the wrong file. Built once per audit from the ``VaultScan``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from audit_pipeline.assertions.text_match import squash, word_set
from audit_pipeline.vault.documents import VaultScan
from audit_pipeline.vault.page_scope import page_scopes

_MIN_CONTAINED = 3  # a squashed label shorter than this ("a", "v2") never matches by containment
_FILLER_WORDS = frozenset({"the", "a", "an", "of", "and", "our", "your", "for", "document"})


@dataclass(frozen=True)
class CatalogEntry:
    """One vault document, pre-processed for matching."""

    doc_id: str
    title: str
    text: str = field(repr=False)
    words: frozenset[str] = field(repr=False)
    stem_key: str = field(repr=False)
    title_key: str = field(repr=False)
    name_words: frozenset[str] = field(repr=False)
    # Per page of a paged (PDF) document, what a page citation may name; empty otherwise.
    pages: tuple[str, ...] = field(default=(), repr=False)


@dataclass(frozen=True)
class Resolution:
    """How a citation label was mapped to a file name (``file`` None: it was not)."""

    file: str | None
    via: str  # "file name", "alias", "title", or "" when unresolved
    detail: str


def _stem(name: str) -> str:
    base = posixpath.basename(name)
    stem, dot, ext = base.rpartition(".")
    return stem if dot and stem and ext.isalnum() and len(ext) <= 8 else base


def _looks_like_file(name: str) -> bool:
    return _stem(name) != posixpath.basename(name)


@dataclass(frozen=True, repr=False)
class VaultCatalog:
    """The vault as seen by citation checks."""

    entries: tuple[CatalogEntry, ...]
    aliases: Mapping[str, str] = field(default_factory=dict)
    _by_id: dict[str, CatalogEntry] = field(init=False, repr=False, compare=False)
    _alias_keys: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {entry.doc_id: entry for entry in self.entries})
        alias_keys = {squash(label): file for label, file in self.aliases.items()}
        object.__setattr__(self, "_alias_keys", alias_keys)

    def __repr__(self) -> str:
        return f"VaultCatalog({len(self.entries)} documents, {len(self.aliases)} aliases)"

    @classmethod
    def from_documents(
        cls,
        documents: Iterable[tuple[str, str, str]],
        aliases: Mapping[str, str] | None = None,
        page_starts: Mapping[str, tuple[int, ...]] | None = None,
    ) -> VaultCatalog:
        """From ``(doc_id, title, text)`` triples; ``page_starts`` maps a paged document's id to
        the offsets where its pages begin, so page citations can be checked."""
        starts = page_starts or {}
        entries = tuple(
            CatalogEntry(
                doc_id=doc_id,
                title=title,
                text=text,
                words=word_set(text),
                stem_key=squash(_stem(doc_id)),
                title_key=squash(title),
                name_words=word_set(f"{_stem(doc_id)} {title}"),
                pages=page_scopes(text, starts.get(doc_id, ())),
            )
            for doc_id, title, text in documents
        )
        return cls(entries=entries, aliases=dict(aliases or {}))

    @classmethod
    def from_scan(cls, scan: VaultScan, aliases: Mapping[str, str] | None = None) -> VaultCatalog:
        return cls.from_documents(
            ((doc.doc_id, doc.title, doc.text) for doc in scan.documents),
            aliases,
            {doc.doc_id: doc.page_starts for doc in scan.documents if doc.page_starts},
        )

    @property
    def doc_ids(self) -> tuple[str, ...]:
        return tuple(self._by_id)

    def get(self, doc_id: str) -> CatalogEntry | None:
        return self._by_id.get(doc_id)

    def find_file(self, name: str) -> str | None:
        """The vault ``doc_id`` a file name denotes: exact, then ignoring case, then by base
        name, then ignoring spacing and punctuation; None when absent or not unique."""
        name = name.strip().lstrip("./")
        if name in self._by_id:
            return name
        for same in (
            lambda doc_id: doc_id.casefold() == name.casefold(),
            lambda doc_id: (
                posixpath.basename(doc_id).casefold() == posixpath.basename(name).casefold()
            ),
            lambda doc_id: squash(_stem(doc_id)) == squash(_stem(name)) != "",
        ):
            found = [doc_id for doc_id in self._by_id if same(doc_id)]
            if len(found) == 1:
                return found[0]
            if found:
                return None
        return None

    def resolve(self, label: str) -> Resolution:
        """Level 1 of citation verification: which file does ``label`` name?

        The returned file may still be missing from the vault (an alias to a removed file, or a
        cited file name the vault never had): that is level 2's finding, not this one's.
        """
        label = label.strip()
        key = squash(label)
        if key in self._alias_keys:
            target = self._alias_keys[key]
            return Resolution(target, "alias", f"alias {label!r} -> {target}")
        found = self.find_file(label)
        if found is not None:
            return Resolution(found, "file name", f"names {found}")
        if _looks_like_file(label):
            return Resolution(label, "file name", f"names the file {label}")
        return self._match_title(label, key)

    def _match_title(self, label: str, key: str) -> Resolution:
        words = {word for word in word_set(label) if word not in _FILLER_WORDS}
        rules = (
            ("title", lambda e: key in (e.stem_key, e.title_key)),
            (
                "title",
                lambda e: len(key) >= _MIN_CONTAINED and key in f"{e.stem_key}|{e.title_key}",
            ),
            ("title", lambda e: bool(words) and words <= e.name_words),
        )
        for via, matches in rules:
            found = [entry.doc_id for entry in self.entries if matches(entry)]
            if len(found) == 1:
                return Resolution(found[0], via, f"label matches the title of {found[0]}")
            if found:
                return Resolution(
                    None, "", f"label {label!r} is ambiguous: matches {', '.join(sorted(found))}"
                )
        return Resolution(None, "", f"unknown source: {label!r} matches no vault file or title")
