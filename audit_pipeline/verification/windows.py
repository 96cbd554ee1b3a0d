"""Claim-focused evidence windows for the entailment model.

A cross-encoder reads at most a few hundred tokens, while a claim's evidence can be a whole
article. Rather than scoring every window of the evidence (costly on two cores), the window
is assembled from the evidence sentences that share the most content with the claim, kept in
document order so the model still reads them as connected text. Training and audit time use
this same function, so the model learns on the kind of window it will see.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from audit_pipeline.text.sentences import sentence_spans
from audit_pipeline.text.tokens import content_stems

# ~1.3 word pieces per word: 80 words leave room for the claim within 192 tokens. The model's
# manifest records the budget it was trained with, and inference uses that one.
# Neither is a stage parameter: the entailment model was trained on windows cut this way, and
# its reading is a feature of the fitted model (nli_unsupported, nli_contradicted); changing
# them means retraining both (``python -m benchmarks.train_verifier``).
WINDOW_WORDS = 80
# A sentence longer than this is cut (tables flattened into one line, run-on passages).
SENTENCE_WORDS = 80


def evidence_sentences(passages: Sequence[str]) -> list[str]:
    """The sentences of the passages, in order, each capped at ``SENTENCE_WORDS`` words."""
    out: list[str] = []
    for passage in passages:
        for start, end in sentence_spans(passage, wrapped=True):
            words = passage[start:end].split()
            for offset in range(0, len(words), SENTENCE_WORDS):
                out.append(" ".join(words[offset : offset + SENTENCE_WORDS]))
    return out


@lru_cache(maxsize=65536)
def _sentence_stems(sentence: str) -> frozenset[str]:
    """Memoised: every claim of an answer ranks the same evidence sentences."""
    return frozenset(content_stems(sentence))


def _overlap(claim_stems: set[str], sentence: str) -> float:
    stems = _sentence_stems(sentence)
    if not claim_stems or not stems:
        return 0.0
    shared = len(claim_stems & stems)
    # Mostly "how much of the claim this sentence covers"; a little precision breaks ties
    # in favour of the focused sentence over a long one that mentions everything.
    return shared / len(claim_stems) + 0.1 * shared / len(stems)


def claim_window(claim: str, sentences: Sequence[str], budget: int = WINDOW_WORDS) -> str:
    """The evidence text the model reads for ``claim``: best-overlapping sentences in order.

    The best sentence always goes in; the next best follow while the word budget lasts, so
    short evidence is read whole and long evidence is read where it concerns the claim.
    """
    if not sentences:
        return ""
    claim_stems = set(content_stems(claim))
    scored = sorted(range(len(sentences)), key=lambda i: (-_overlap(claim_stems, sentences[i]), i))
    chosen: list[int] = []
    used = 0
    for index in scored:
        words = len(sentences[index].split())
        if chosen and used + words > budget:
            continue
        chosen.append(index)
        used += words
        if used >= budget:
            break
    return " ".join(sentences[i] for i in sorted(chosen))
