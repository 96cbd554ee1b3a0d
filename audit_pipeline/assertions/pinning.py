"""Regression pinning (seed 000 §11.3): a critical prompt's answer must not drift from a pin.

For prompts whose wording matters (the fallback sentence for subprocessors, the refusal of an
attack) a suite pins the expected answer and a tolerance:

- ``exact``: the very same string;
- ``normalized``: the same after Unicode normalisation (NFKC), folding curly quotes and dashes,
  ignoring case, whitespace runs, citation markers and the closing punctuation: a bot that
  re-flows a line or capitalises a word has not drifted;
- ``semantic``: embeddings (the vault's embedding model) at least ``pinned_min_similarity``
  apart in cosine similarity (0.9 by default): a paraphrase passes, a different answer fails.

``audit-pipeline pin`` writes an audit's answers into the suite as pins.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

import numpy as np

from audit_pipeline.assertions.assertion_outcome import PINNED, AssertionOutcome
from audit_pipeline.assertions.content import without_citation_markers
from audit_pipeline.assertions.text_match import fold, quoted
from audit_pipeline.embedding import Embedder
from audit_pipeline.suites.prompt_suite import DEFAULT_MIN_SIMILARITY

Similarity = Callable[[str, str], float]

_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """The form ``normalized`` pins compare: see the module docstring."""
    text = unicodedata.normalize("NFKC", fold(without_citation_markers(text)))
    return _SPACE.sub(" ", text).strip().rstrip(".!?;: ").casefold()


def embedding_similarity(embedder: Embedder) -> Similarity:
    """Cosine similarity of two texts' embeddings."""

    def similarity(a: str, b: str) -> float:
        first, second = np.asarray(embedder.embed([a, b]), dtype=float)
        norms = float(np.linalg.norm(first) * np.linalg.norm(second))
        return float(first @ second / norms) if norms else 0.0

    return similarity


def check_pinned(
    response: str,
    pinned: str,
    tolerance: str,
    min_similarity: float = DEFAULT_MIN_SIMILARITY,
    similarity: Similarity | None = None,
) -> AssertionOutcome:
    if tolerance == "exact":
        if response == pinned:
            return AssertionOutcome(PINNED, True, "identical to the pinned response")
        at = next(
            (i for i, (a, b) in enumerate(zip(response, pinned, strict=False)) if a != b),
            min(len(response), len(pinned)),
        )
        return AssertionOutcome(
            PINNED,
            False,
            f"drifted from the pinned response (exact) at char {at}: "
            f"{quoted(response[at : at + 40])} instead of {quoted(pinned[at : at + 40])}",
        )
    if tolerance == "normalized":
        same = normalize(response) == normalize(pinned)
        detail = (
            "matches the pinned response (normalized)"
            if same
            else (f"drifted from the pinned response (normalized): {quoted(response)}")
        )
        return AssertionOutcome(PINNED, same, detail)
    if similarity is None:
        raise ValueError("a semantic pin needs a similarity function (the embedding model)")
    score = similarity(response, pinned)
    if score >= min_similarity:
        return AssertionOutcome(
            PINNED, True, f"similar to the pinned response: {score:.3f} >= {min_similarity}"
        )
    return AssertionOutcome(
        PINNED,
        False,
        f"drifted from the pinned response (semantic): similarity {score:.3f} < "
        f"{min_similarity}: {quoted(response)}",
    )
