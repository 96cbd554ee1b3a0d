"""How relevant one retrieved chunk is to a query, on a 0..1 scale that thresholds can use.

The fused reciprocal-rank score orders hits but says nothing absolute: the best hit of an
off-topic question gets the same fused score as the best hit of a perfect one. A threshold
(``min_score`` of a collection, the reference bot's ``min_confidence``) needs a score that means
the same thing for every query, so a hit is scored by the two signals hybrid search already
computed: its cosine similarity (is the topic close?) and its BM25 score per query term (does
the chunk use the question's own words?). Out-of-vault questions on in-vault topics ("the most
recent pen-test results") are close in embedding space but share few terms with any chunk, so
either signal alone lets them through; their mean separates them.
"""

from __future__ import annotations

import re

from audit_pipeline.index.hits import SearchHit

# The BM25 score per query term at which the lexical side counts as full support, and the range
# of terms counted: a one- or two-word question ("how is that checked?") must match strongly,
# and a long, chatty one should not need a huge score.
BM25_PER_TERM = 2.0
MIN_COUNTED_TERMS = 3
MAX_COUNTED_TERMS = 12

_WORD = re.compile(r"[a-z0-9]+")
_STOP_WORD_TEXT = (
    "a about all an and any are as at be by can did do does for from give had has have how i "
    "in is it its just me my of on or our please so tell that the their them there this to us "
    "was we were what when where which who why will with would you your yours"
)
_STOP_WORDS = frozenset(_STOP_WORD_TEXT.split())


def content_terms(text: str) -> list[str]:
    """Distinct lower-cased words of a query, without stop words."""
    words = (w for w in _WORD.findall(text.lower()) if len(w) > 1 and w not in _STOP_WORDS)
    return list(dict.fromkeys(words))


def hit_relevance(query: str, hit: SearchHit) -> float:
    """0..1: the mean of the hit's cosine similarity and its BM25 score per query term.

    A hit found without embeddings (``vector_score`` None) has only its lexical half.
    """
    semantic = min(1.0, max(0.0, hit.vector_score or 0.0))
    counted = min(max(len(content_terms(query)), MIN_COUNTED_TERMS), MAX_COUNTED_TERMS)
    lexical = min(1.0, max(0.0, (hit.bm25_score or 0.0) / (BM25_PER_TERM * counted)))
    return (semantic + lexical) / 2
