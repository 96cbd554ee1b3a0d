"""Lexical normalisation shared by BM25 ranking and the verifier's word-overlap signals.

A crude suffix-stripping stemmer is enough here: it only has to make "charged" meet "charges"
and "purchase" meet "purchased"; it never has to produce a real word. Identifiers such as
``ERR-4021``, ``TLS 1.2`` parts or ``config.yaml`` are kept whole (and also split into their
parts) because an exact identifier match is the strongest evidence a retriever can see.
"""

from __future__ import annotations

import re
from functools import lru_cache

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?(?:[-_./:][A-Za-z0-9]+)*")  # noqa: RUF001
_PART = re.compile(r"[A-Za-z0-9]+")

STOPWORDS = frozenset(
    [
        "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and",
        "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between",
        "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during",
        "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her",
        "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is",
        "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not",
        "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out",
        "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the",
        "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this",
        "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were",
        "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
        "you", "your", "yours", "yourself", "yourselves", "s", "t", "don", "isn", "aren", "wasn",
        "weren", "hasn", "haven", "hadn", "doesn", "didn", "won", "wouldn", "shouldn", "can't",
        "cannot", "couldn", "mustn", "let", "let's", "it's", "that's", "there's", "here's",
        "what's", "who's", "i'm", "you're", "we're", "they're", "i've", "you've", "we've",
        "they've", "i'd", "you'd", "he'd", "she'd", "we'd", "they'd", "i'll", "you'll", "he'll",
        "she'll", "we'll", "they'll", "isn't", "aren't", "wasn't", "weren't", "hasn't",
        "haven't", "hadn't", "doesn't", "don't", "didn't", "won't", "wouldn't", "shan't",
        "shouldn't", "mustn't", "may", "might", "must", "shall", "one", "also", "well",
        "however", "etc", "via", "per", "within", "upon", "among", "amongst", "onto", "toward",
        "towards", "whether", "yet", "pm", "a.m", "p.m",
    ]
)  # fmt: skip


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
