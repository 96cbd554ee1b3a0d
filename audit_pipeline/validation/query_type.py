"""Is a question factual or conversational? It decides the Self-RAG confidence weights.

Seed 003 weighs support most for factual questions and usefulness most for conversational
ones: "thanks, can you help me?" has nothing to be grounded, while "how long are backups
kept?" is only as good as its evidence. A few patterns are enough to tell them apart, and they
are deterministic, so the same question always gets the same weights.
"""

from __future__ import annotations

import re
from typing import Literal

QueryType = Literal["factual", "conversational"]

_SMALL_TALK = re.compile(
    r"^\s*(?:hi|hello|hey|thanks?|thank you|good (?:morning|afternoon|evening)|bye|goodbye|"
    r"how are you|who are you|what can you do|can you help|could you help|please help|ok(?:ay)?|"
    r"great|cool|nice)\b",
    re.IGNORECASE,
)
_OPINION = re.compile(
    r"\b(?:what do you think|your opinion|do you (?:like|prefer|feel)|tell me a joke|"
    r"how do you feel)\b",
    re.IGNORECASE,
)
_FACTUAL_CUES = re.compile(
    r"\b(?:what|which|when|where|who|how (?:many|much|long|often)|is|are|does|do|can|must|"
    r"should|list|define|explain|describe)\b|\d",
    re.IGNORECASE,
)


def detect_query_type(question: str) -> QueryType:
    """``conversational`` for greetings, thanks, small talk and opinion requests; otherwise
    ``factual`` (the stricter weighting, so an unclear question is not let off lightly)."""
    text = question.strip()
    if not text:
        return "conversational"
    if _OPINION.search(text):
        return "conversational"
    if _SMALL_TALK.match(text) and len(re.findall(r"\w+", text)) <= 8:
        rest = _SMALL_TALK.sub("", text, count=1)
        if not _FACTUAL_CUES.search(rest):
            return "conversational"
    return "factual"
