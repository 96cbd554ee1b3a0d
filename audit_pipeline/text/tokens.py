"""Lexical normalisation shared by BM25 ranking and the verifier's word-overlap signals.

A crude suffix-stripping stemmer is enough here: it only has to make "charged" meet "charges"
and "purchase" meet "purchased"; it never has to produce a real word. Identifiers such as
``ERR-4021``, ``TLS 1.2`` parts or ``config.yaml`` are kept whole (and also split into their
parts) because an exact identifier match is the strongest evidence a retriever can see.
"""

from __future__ import annotations

import re
from functools import lru_cache

from audit_pipeline.text import wordlists

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?(?:[-_./:][A-Za-z0-9]+)*")  # noqa: RUF001
_PART = re.compile(r"[A-Za-z0-9]+")

# Function words left out of index terms and word-overlap signals
# (``text/words/stopwords.txt``).
STOPWORDS = wordlists.words("text", "stopwords")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Lowercase and strip common English inflections ("ies"->"y", "-ing", "-ed", "-s", "-e")."""
    word = word.lower().replace("’", "'")  # noqa: RUF001
    if word.endswith("'s"):
        word = word[:-2]
    if not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ingly", "edly", "ing", "ed", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # "stopped" -> "stopp" -> "stop"
            break
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


def raw_tokens(text: str) -> list[str]:
    """Word and identifier tokens in their original case."""
    return _TOKEN.findall(text)


def terms(text: str) -> list[str]:
    """Index terms: stemmed words without stopwords, plus the parts of compound identifiers."""
    out: list[str] = []
    for token in raw_tokens(text):
        lowered = token.lower()
        if lowered in STOPWORDS:
            continue
        parts = _PART.findall(lowered)
        if len(parts) > 1:
            out.append(lowered)
            out.extend(stem(part) for part in parts if part not in STOPWORDS)
        else:
            out.append(stem(lowered))
    return out


def content_words(text: str) -> list[str]:
    """Lowercased content words (no stopwords, identifier compounds split), in order."""
    out: list[str] = []
    for token in raw_tokens(text):
        for part in _PART.findall(token.lower()):
            if part not in STOPWORDS and not (len(part) == 1 and part.isalpha()):
                out.append(part)
    return out


def content_stems(text: str) -> list[str]:
    """Stems of the content words, in order."""
    return [stem(word) for word in content_words(text)]
