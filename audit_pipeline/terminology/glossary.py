"""The glossary: terms, definitions and alternative labels, read from YAML, CSV or SKOS Turtle.

A glossary is the truth source for terminology: a definition in an answer is checked against
the glossary's definition, not against whatever vault passage happens to mention the term.
Three formats, because glossaries live in different tools: a hand-written YAML list, a
spreadsheet export (CSV) and a thesaurus export (SKOS in Turtle). Every error names the file,
the line or entry and the field, since a glossary is edited by people who are not developers.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_SPACE = re.compile(r"\s+")
_QUOTES = "\"'`\u201c\u201d\u2018\u2019"
_EDGE = re.compile(rf"^[\s{_QUOTES}(\[]+|[\s{_QUOTES})\].,;:!?]+$")
_ARTICLE = re.compile(r"^(?:the|an?)\s+", re.IGNORECASE)
ALT_SEPARATOR = re.compile(r"\s*[|;]\s*")


class GlossaryError(ValueError):
    """The glossary cannot be used; the message names the file, line or entry, and field."""


@dataclass(frozen=True)
class Concept:
    """One glossary concept. ``source`` is the file name or the remote concept URI: what an
    answer's citation of the definition points at."""

    concept_id: str
    term: str
    definition: str
    alt_labels: tuple[str, ...] = ()
    source: str = "glossary"

    @property
    def labels(self) -> tuple[str, ...]:
        return (self.term, *self.alt_labels)

    def passage_text(self) -> str:
        """The definition as an evidence passage: labels first, so a claim naming the term by
        its abbreviation still overlaps the passage."""
        alts = f" ({', '.join(self.alt_labels)})" if self.alt_labels else ""
        return f"{self.term}{alts}: {self.definition}"


def normalize_term(term: str) -> str:
    """The lookup key: case-folded, spacing collapsed, quotes, brackets, a trailing
    punctuation mark and a leading article removed ("the RPO." -> "rpo")."""
    text = _EDGE.sub("", _SPACE.sub(" ", term)).strip()
    return _ARTICLE.sub("", text).casefold()


class Glossary:
    """Concepts indexed by every label; one label may name several concepts (ambiguity)."""

    def __init__(self, concepts: Iterable[Concept], name: str = "glossary") -> None:
        self.name = name
        self.concepts = tuple(concepts)
        self._by_label: dict[str, list[Concept]] = {}
        for concept in self.concepts:
            for label in dict.fromkeys(normalize_term(label) for label in concept.labels):
                if label:
                    self._by_label.setdefault(label, []).append(concept)

    def __len__(self) -> int:
        return len(self.concepts)

    def lookup(self, term: str) -> tuple[Concept, ...]:
        return tuple(self._by_label.get(normalize_term(term), ()))

    def labels(self) -> list[str]:
        """Every normalized label, longest first (so "data residency" wins over "data")."""
        return sorted(self._by_label, key=len, reverse=True)


def load_glossary(path: str | Path) -> Glossary:
    """Read a glossary file; the format follows the suffix (.yaml/.yml, .csv, .ttl)."""
    path = Path(path)
    if not path.is_file():
        raise GlossaryError(f"{path}: glossary file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GlossaryError(f"{path}: cannot read the glossary ({exc})") from None
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        concepts = _from_yaml(text, path)
    elif suffix == ".csv":
        concepts = _from_csv(text, path)
    elif suffix in (".ttl", ".turtle"):
        concepts = concepts_from_turtle(text, path.name, where=str(path))
    else:
        raise GlossaryError(f"{path}: unknown glossary format {suffix!r} (use .yaml, .csv or .ttl)")
    if not concepts:
        raise GlossaryError(f"{path}: the glossary has no terms")
    _unique_ids(concepts, path)
    return Glossary(concepts, name=path.name)


def _unique_ids(concepts: Sequence[Concept], path: Path) -> None:
    seen: set[str] = set()
    for concept in concepts:
        if concept.concept_id in seen:
            raise GlossaryError(f"{path}: id {concept.concept_id!r} is used twice")
        seen.add(concept.concept_id)


def _slug(term: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", term.casefold()).strip("-") or "term"


def _text_field(value: Any, where: str, field: str, *, required: bool = True) -> str:
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise GlossaryError(f"{where}: field {field!r}: missing or empty")
        return ""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise GlossaryError(f"{where}: field {field!r}: expected text, got {type(value).__name__}")
    return _SPACE.sub(" ", str(value)).strip()


def _alt_labels(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        items: list[Any] = [part for part in ALT_SEPARATOR.split(value) if part]
    elif isinstance(value, list):
        items = value
    else:
        raise GlossaryError(f"{where}: field 'alt_labels': expected a list or a string")
    return tuple(_text_field(item, where, "alt_labels") for item in items)


def _concept(data: dict[str, Any], where: str, source: str) -> Concept:
    known = {"id", "term", "definition", "alt_labels"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise GlossaryError(
            f"{where}: unknown field {unknown[0]!r} (fields: id, term, definition, alt_labels)"
        )
    term = _text_field(data.get("term"), where, "term")
    definition = _text_field(data.get("definition"), where, "definition")
    concept_id = _text_field(data.get("id"), where, "id", required=False) or _slug(term)
    return Concept(concept_id, term, definition, _alt_labels(data.get("alt_labels"), where), source)


def _from_yaml(text: str, path: Path) -> list[Concept]:
    """A list of entries, or a mapping whose ``terms`` key holds the list; errors name the
    entry's line."""
    try:
        loader = yaml.SafeLoader(text)
        try:
            root = loader.get_single_node()
            if root is None:
                return []
            if isinstance(root, yaml.MappingNode):
                keys = {k.value: v for k, v in root.value if isinstance(k, yaml.ScalarNode)}
                if set(keys) != {"terms"}:
                    raise GlossaryError(f"{path}: the top level must be a list or 'terms:'")
                root = keys["terms"]
            if not isinstance(root, yaml.SequenceNode):
                raise GlossaryError(f"{path}, line {root.start_mark.line + 1}: expected a list")
            concepts = []
            for number, node in enumerate(root.value, start=1):
                where = f"{path}, entry {number} (line {node.start_mark.line + 1})"
                data = loader.construct_object(node, deep=True)
                if not isinstance(data, dict):
                    raise GlossaryError(f"{where}: expected a mapping with term and definition")
                concepts.append(_concept(data, where, path.name))
            return concepts
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f", line {mark.line + 1}" if mark else ""
        raise GlossaryError(f"{path}{line}: YAML syntax error: {exc}") from None


def _from_csv(text: str, path: Path) -> list[Concept]:
    """Columns ``term``, ``definition``, optional ``alt_labels`` ("|" or ";" between labels)
    and ``id``; errors name the line."""
    reader = csv.DictReader(io.StringIO(text))
    header = [name.strip() for name in reader.fieldnames or []]
    missing = [name for name in ("term", "definition") if name not in header]
    if missing:
        raise GlossaryError(f"{path}, line 1: missing column {missing[0]!r}")
    reader.fieldnames = header
    concepts = []
    for row in reader:
        where = f"{path}, line {reader.line_num}"
        if None in row:
            raise GlossaryError(f"{where}: more values than columns")
        if not any((value or "").strip() for value in row.values()):
            continue
        concepts.append(_concept({k: v for k, v in row.items() if v}, where, path.name))
    return concepts


def concepts_from_turtle(
    text: str, source: str | None, where: str, *, strict: bool = True
) -> list[Concept]:
    """SKOS concepts (``skos:prefLabel``, ``skos:altLabel``, ``skos:definition``) in Turtle.

    English or untagged literals are preferred. ``source`` None makes each concept's URI its
    source, so a citation points at the thesaurus entry. Used for local files (``strict``: a
    concept without a definition is an error) and SKOSMOS responses (such neighbours as
    broader concepts are skipped) alike.
    """
    from rdflib import Graph, Literal
    from rdflib.namespace import SKOS

    graph = Graph()
    try:
        graph.parse(data=text, format="turtle")
    except Exception as exc:  # rdflib raises several parser types; all mean "bad Turtle"
        raise GlossaryError(f"{where}: Turtle syntax error: {exc}") from None

    def pick(values: Iterable[Any]) -> str | None:
        literals = [v for v in values if isinstance(v, Literal)]
        for wanted in ("en", None):
            for value in literals:
                if (value.language or None) == wanted or (
                    wanted == "en" and (value.language or "").startswith("en-")
                ):
                    return str(value)
        return str(literals[0]) if literals else None

    concepts = []
    for subject in sorted(set(graph.subjects(SKOS.prefLabel, None)), key=str):
        uri = str(subject)
        term = pick(graph.objects(subject, SKOS.prefLabel))
        definition = pick(graph.objects(subject, SKOS.definition))
        entry = f"{where}: concept <{uri}>"
        if not definition:
            if not strict:
                continue
            raise GlossaryError(f"{entry}: field 'skos:definition': missing")
        alts = sorted({str(v) for v in graph.objects(subject, SKOS.altLabel)})
        concepts.append(
            Concept(
                uri,
                _text_field(term, entry, "skos:prefLabel"),
                _text_field(definition, entry, "skos:definition"),
                tuple(alts),
                source or uri,
            )
        )
    return concepts
