"""The golden set: queries with the vault documents a good retrieval must return.

``data/evaluation/golden_queries.jsonl`` holds one JSON object per line::

    {"query": "How often are encryption keys rotated?",
     "expected_doc_ids": ["encryption-standard.md"],
     "expected_doc_types": ["standards"],        # optional: collections a good hit comes from
     "collection": "standards"}                  # optional: where the query's figures count

Retrieval is tuned against it, so it is versioned with the code: its hash goes into every
evaluation, and a changed golden set shows up as a changed hash rather than as a silent jump in
the figures. The prompts of the configured suites that name ``expected_doc_ids`` count as golden
queries too, so a suite author's knowledge of where answers live is measured as well.
A problem in the file is reported with its line and field, and nothing is evaluated.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIELDS = ("query", "expected_doc_ids", "expected_doc_types", "collection")


class GoldenSetError(ValueError):
    """The golden set (or a suite it draws on) is unusable; the message names file and field."""


@dataclass(frozen=True)
class GoldenQuery:
    query: str
    expected_doc_ids: tuple[str, ...]
    expected_doc_types: tuple[str, ...] = ()
    collection: str | None = None
    source: str = "golden set"  # where it was written: "golden_queries.jsonl:12", "suite X, Y"

    def canonical(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "expected_doc_ids": list(self.expected_doc_ids),
            "expected_doc_types": list(self.expected_doc_types),
            "collection": self.collection,
        }


def load_golden(path: Path) -> list[GoldenQuery]:
    """Parse and check the shape of every line; problems are collected, then raised together."""
    if not path.is_file():
        problem = "is a directory" if path.exists() else "not found"
        raise GoldenSetError(f"golden set {path}: {problem}")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise GoldenSetError(f"golden set {path}: not valid UTF-8 ({error.reason})") from None
    except OSError as error:
        raise GoldenSetError(f"golden set {path}: unreadable ({error.strerror})") from None
    queries: list[GoldenQuery] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"{where}: invalid JSON ({error.msg}, column {error.colno})")
            continue
        query = _parse(data, where, problems)
        if query is not None:
            queries.append(query)
    if not queries and not problems:
        problems.append(f"{path}: the golden set is empty")
    raise_problems(problems)
    return queries


def _parse(data: Any, where: str, problems: list[str]) -> GoldenQuery | None:
    if not isinstance(data, dict):
        problems.append(f"{where}: a golden query is a JSON object")
        return None
    before = len(problems)
    for key in data:
        if key not in FIELDS:
            problems.append(f"{where}: field '{key}': unknown field; allowed: {', '.join(FIELDS)}")
    query = data.get("query")
    if not isinstance(query, str) or not query.strip():
        problems.append(f"{where}: field 'query': required, a non-empty string")
    doc_ids = _strings(data, "expected_doc_ids", where, problems, required=True)
    doc_types = _strings(data, "expected_doc_types", where, problems, required=False)
    collection = data.get("collection")
    if collection is not None and (not isinstance(collection, str) or not collection.strip()):
        problems.append(f"{where}: field 'collection': must be a non-empty string")
    if len(problems) > before:
        return None
    return GoldenQuery(str(query).strip(), doc_ids, doc_types, collection, where)


def _strings(
    data: Mapping[str, Any], name: str, where: str, problems: list[str], required: bool
) -> tuple[str, ...]:
    value = data.get(name)
    if value is None and not required:
        return ()
    if not isinstance(value, list) or (required and not value):
        need = "a non-empty list" if required else "a list"
        problems.append(f"{where}: field '{name}': {need} of strings")
        return ()
    if not all(isinstance(item, str) and item.strip() for item in value):
        problems.append(f"{where}: field '{name}': every entry must be a non-empty string")
        return ()
    return tuple(dict.fromkeys(value))


def suite_queries(suites: Iterable[tuple[str, Any]]) -> list[GoldenQuery]:
    """Golden queries from suite prompts that name ``expected_doc_ids``: (name, PromptSuite)."""
    found = []
    for name, suite in suites:
        for prompt in suite.prompts:
            if prompt.expected_doc_ids:
                found.append(
                    GoldenQuery(
                        prompt.prompt,
                        tuple(prompt.expected_doc_ids),
                        source=f"suite {name}, prompt {prompt.id}",
                    )
                )
    return found


def merge(golden: list[GoldenQuery], extra: list[GoldenQuery]) -> list[GoldenQuery]:
    """The golden queries, then those of ``extra`` whose text is not already there."""
    seen = {_key(query.query) for query in golden}
    merged = list(golden)
    for query in extra:
        if _key(query.query) not in seen:
            seen.add(_key(query.query))
            merged.append(query)
    return merged


def check_against_vault(
    queries: Iterable[GoldenQuery], doc_ids: Collection[str], collections: Collection[str]
) -> None:
    """Every expected document exists and every named collection is known; else one error."""
    problems = []
    for query in queries:
        for doc_id in query.expected_doc_ids:
            if doc_id not in doc_ids:
                problems.append(
                    f"{query.source}: field 'expected_doc_ids': {doc_id!r} is not a vault document"
                )
        for name in (*query.expected_doc_types, *filter(None, [query.collection])):
            if name not in collections:
                field = "collection" if name == query.collection else "expected_doc_types"
                problems.append(
                    f"{query.source}: field '{field}': {name!r} is not a collection "
                    f"(known: {', '.join(sorted(collections))})"
                )
    raise_problems(problems)


def golden_hash(queries: Iterable[GoldenQuery]) -> str:
    text = json.dumps([query.canonical() for query in queries], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def raise_problems(problems: list[str]) -> None:
    """One line for a CI log: the first problems, and how many more there are."""
    if not problems:
        return
    shown = "; ".join(problems[:3])
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    raise GoldenSetError(f"{shown}{more}")


def _key(text: str) -> str:
    return " ".join(text.casefold().split())
