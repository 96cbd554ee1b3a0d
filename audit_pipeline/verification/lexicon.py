"""How common an English word is, read from the embedding model's own WordPiece vocabulary.

A summary that adds "delicious" or "popular" embellishes; one that adds "charcuterie" or
"Mississippi" invents a fact. Whole words in a BERT vocabulary are listed roughly from most to
least frequent, so a word's position there is a free frequency estimate that ships with the
model we already depend on (no word-frequency package, nothing downloaded).
"""

from __future__ import annotations

import math
import os
from functools import cache

from audit_pipeline.embedding import DEFAULT_MODEL, resolve_model_path
from audit_pipeline.text import wordlists

_FIRST_WORD_RANK = 1996  # [unused*] entries, specials and single characters come first
# The rank given to a word outside the vocabulary, and so the top of the log scale of rarity.
# Not a stage parameter: rarity is a feature the fitted model was trained on
# (uncovered_rarity, uncovered_rare); changing it needs a refit (``python -m
# benchmarks.train_verifier``).
_OUT_OF_VOCABULARY = 40_000
# Endings of adjectives: ``verification/words/adjective_suffixes.txt``.
_ADJECTIVE_SUFFIXES = wordlists.sequence("verification", "adjective_suffixes")


@cache
def _ranks(model: str = DEFAULT_MODEL) -> dict[str, int]:
    try:
        path = os.path.join(resolve_model_path(model), "vocab.txt")
        with open(path, encoding="utf-8") as handle:
            words = handle.read().split("\n")
    except (OSError, ValueError, ImportError):
        return {}
    return {
        word: max(1, index - _FIRST_WORD_RANK)
        for index, word in enumerate(words)
        if word.isalpha() and not word.startswith("##") and index >= _FIRST_WORD_RANK
    }


def rarity(word: str) -> float:
    """0 for the most common words, 1 for words outside the vocabulary (log-scaled rank)."""
    ranks = _ranks()
    if not ranks:
        return 0.5
    rank = ranks.get(word.lower(), _OUT_OF_VOCABULARY)
    return min(1.0, math.log(rank) / math.log(_OUT_OF_VOCABULARY))


def is_descriptive(word: str) -> bool:
    """Adverbs and adjectives by suffix: the words that embellish rather than state."""
    lowered = word.lower()
    return len(lowered) > 5 and lowered.endswith(("ly", *_ADJECTIVE_SUFFIXES))
