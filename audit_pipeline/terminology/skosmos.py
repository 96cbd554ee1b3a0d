"""A SKOSMOS thesaurus as the terminology source, over its REST API.

A remote thesaurus is slow and sometimes down, and the answer it gives for a term changes
rarely, so lookups are cached (LRU, with a time to live) and bounded by one deadline: a lookup
that runs out of time is ``timeout`` (the claim is "unverified terminology"), never a guess.
Two calls per concept: ``/rest/v1/{vocab}/lookup?label=`` finds the concepts a label names,
``/rest/v1/{vocab}/data?uri=&format=text/turtle`` returns each concept's SKOS description.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import httpx

from audit_pipeline.terminology.glossary import Concept, GlossaryError, concepts_from_turtle
from audit_pipeline.terminology.glossary import normalize_term as _key
from audit_pipeline.terminology.lookup import TermLookup, count, outcome

MAX_CONCEPTS = 5  # per label: more is a search result, not a definition


class TtlLruCache:
    """At most ``size`` entries, each valid for ``ttl_s`` seconds; thread-safe."""

    def __init__(
        self, size: int, ttl_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.size, self.ttl_s, self.clock = size, ttl_s, clock
        self._items: OrderedDict[str, tuple[float, tuple[Concept, ...]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[Concept, ...] | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            if item[0] <= self.clock():
                del self._items[key]
                return None
            self._items.move_to_end(key)
            return item[1]

    def put(self, key: str, concepts: tuple[Concept, ...]) -> None:
        with self._lock:
            self._items[key] = (self.clock() + self.ttl_s, concepts)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


class SkosmosSource:
    """Look terms up in one SKOSMOS vocabulary; hits and misses are cached, timeouts not."""

    def __init__(
        self,
        base_url: str,
        vocabulary: str,
        *,
        lang: str = "en",
        timeout_s: float = 0.5,
        cache_size: int = 1000,
        cache_ttl_s: float = 900.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.vocabulary = vocabulary
        self.lang = lang
        self.timeout_s = timeout_s
        self.name = f"skosmos:{vocabulary}"
        self.cache = TtlLruCache(cache_size, cache_ttl_s)
        self._client = httpx.Client(transport=transport, follow_redirects=False)

    def close(self) -> None:
        self._client.close()

    def lookup(self, term: str) -> TermLookup:
        key = _key(term)
        cached = self.cache.get(key)
        if cached is not None:
            return count(outcome(term, cached, cached=True))
        deadline = time.monotonic() + self.timeout_s
        try:
            concepts = self._fetch(term, deadline)
        except httpx.TimeoutException:
            return count(TermLookup(term, "timeout", detail=f"no answer within {self.timeout_s} s"))
        except (httpx.HTTPError, GlossaryError, ValueError) as exc:
            # Unreachable or garbled: as unverifiable as a timeout, and counted as one.
            return count(TermLookup(term, "timeout", detail=f"lookup failed: {exc}"))
        self.cache.put(key, concepts)
        return count(outcome(term, concepts))

    def _get(self, path: str, params: dict[str, str], deadline: float) -> httpx.Response:
        left = deadline - time.monotonic()
        if left <= 0:
            raise httpx.TimeoutException("deadline passed")
        return self._client.get(f"{self.base_url}{path}", params=params, timeout=left)

    def _fetch(self, term: str, deadline: float) -> tuple[Concept, ...]:
        base = f"/rest/v1/{self.vocabulary}"
        found = self._get(f"{base}/lookup", {"label": term, "lang": self.lang}, deadline)
        if found.status_code == 404:  # SKOSMOS answers an unknown label with 404
            return ()
        found.raise_for_status()
        results: list[Any] = found.json().get("result") or []
        uris = [r["uri"] for r in results if isinstance(r, dict) and isinstance(r.get("uri"), str)]
        concepts: list[Concept] = []
        for uri in dict.fromkeys(uris[:MAX_CONCEPTS]):
            data = self._get(f"{base}/data", {"uri": uri, "format": "text/turtle"}, deadline)
            data.raise_for_status()
            described = concepts_from_turtle(data.text, None, f"{self.name} <{uri}>", strict=False)
            concepts.extend(c for c in described if c.concept_id == uri)
        return tuple(concepts)
