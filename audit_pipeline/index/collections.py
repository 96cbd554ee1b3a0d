"""Collections: named parts of the vault, each with its own retrieval thresholds.

One global threshold rarely suits every kind of document: a short FAQ answer and a long policy
section score differently for the same question, and tuning one threshold for both trades one
kind's precision for the other's recall. So the vault may be split into collections, from its
sub-folders or from a ``collections:`` map in audit.yaml, each with a ``min_score`` (hits below it
are dropped) and a ``top_k`` (at most that many of its chunks per query), and a ``default`` entry
for the rest. The reference bot and the evidence stage both search through a retriever that
applies them, and ``retrieval-eval`` measures them against the golden set.

A document belongs to the first configured collection whose ``paths`` patterns match its
vault-relative path (a collection without ``paths`` is the sub-folder of that name); otherwise
to its top-level sub-folder; otherwise to ``default``.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from pydantic import BaseModel, ConfigDict, Field

from audit_pipeline.index.hits import SearchHit
from audit_pipeline.index.relevance import hit_relevance

DEFAULT = "default"


class CollectionSettings(BaseModel):
    """One entry of ``collections:``; thresholds left out come from the ``default`` entry."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    paths: tuple[str, ...] = Field(
        default=(), description="glob patterns of vault-relative paths; empty: the sub-folder"
    )
    min_score: float | None = Field(default=None, ge=0.0, le=1.0)
    top_k: int | None = Field(default=None, ge=1)


@dataclass(frozen=True)
class Thresholds:
    min_score: float
    top_k: int | None  # None: no cap of its own (the query's k still applies)


class CollectionPolicy:
    """Which collection a document is in, and the hits a query keeps under its thresholds."""

    def __init__(self, settings: Mapping[str, CollectionSettings] | None = None) -> None:
        self.settings = dict(settings or {})
        base = self.settings.get(DEFAULT, CollectionSettings())
        self.default = Thresholds(base.min_score if base.min_score is not None else 0.0, base.top_k)

    @property
    def configured(self) -> tuple[str, ...]:
        """Named collections of the configuration, ``default`` excluded, in order."""
        return tuple(name for name in self.settings if name != DEFAULT)

    def collection_of(self, doc_id: str) -> str:
        for name in self.configured:
            entry = self.settings[name]
            patterns = entry.paths or (f"{name}/*",)
            if any(fnmatchcase(doc_id, pattern) for pattern in patterns):
                return name
        folder, slash, _ = doc_id.partition("/")
        return folder if slash else DEFAULT

    def names(self, doc_ids: Iterable[str]) -> list[str]:
        """Every collection of ``doc_ids``, in ``ordered`` order."""
        return self.ordered({self.collection_of(doc_id) for doc_id in doc_ids})

    def ordered(self, names: Iterable[str]) -> list[str]:
        """``names`` with the configured collections first (in configuration order)."""
        found = set(names)
        first = [name for name in self.configured if name in found]
        return first + sorted(found - set(first))

    def thresholds(self, collection: str) -> Thresholds:
        entry = self.settings.get(collection)
        if entry is None:
            return self.default
        return Thresholds(
            entry.min_score if entry.min_score is not None else self.default.min_score,
            entry.top_k if entry.top_k is not None else self.default.top_k,
        )

    @property
    def is_neutral(self) -> bool:
        """True when no threshold can drop a hit: the policy changes nothing."""
        everything = [self.default, *(self.thresholds(name) for name in self.configured)]
        return all(t.min_score <= 0.0 and t.top_k is None for t in everything)

    def select(self, query: str, ranked: Sequence[SearchHit], k: int) -> list[SearchHit]:
        """The first ``k`` hits of ``ranked`` that reach their collection's ``min_score``, with
        at most ``top_k`` of each collection."""
        kept: list[SearchHit] = []
        taken: Counter[str] = Counter()
        for hit in ranked:
            if len(kept) >= k:
                break
            name = self.collection_of(hit.document)
            limits = self.thresholds(name)
            if limits.top_k is not None and taken[name] >= limits.top_k:
                continue
            if hit_relevance(query, hit) < limits.min_score:
                continue
            kept.append(hit)
            taken[name] += 1
        return kept

    def fingerprint(self) -> str:
        """Changes with any setting: answers cached under other thresholds are not reused."""
        payload = {name: entry.model_dump(mode="json") for name, entry in self.settings.items()}
        text = json.dumps(payload, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]
