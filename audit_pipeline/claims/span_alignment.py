"""Mapping a claim an LLM wrote back onto the exact span of the response it came from.

LLMs rarely copy perfectly (quotes change, a word is dropped, a pronoun resolved), but every
claim must point at a span of the response. Exact search first; otherwise the word window
with the highest character similarity, accepted only above a floor.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from audit_pipeline.text.sentences import Span

_WORD = re.compile(r"\S+")


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def locate(response: str, claim: str, start_at: int = 0, min_ratio: float = 0.6) -> Span | None:
    """Span of ``response`` that best matches ``claim``; ``None`` if nothing is close enough.

    Exact matches after ``start_at`` are preferred (LLMs list claims in answer order), then
    exact matches anywhere, then the best fuzzy word window.
    """
    target = claim.strip()
    if not target:
        return None
    for origin in (start_at, 0):
        found = response.find(target, origin)
        if found != -1:
            return found, found + len(target)
        found = response.lower().find(target.lower(), origin)
        if found != -1:
            return found, found + len(target)
    words = [match.span() for match in _WORD.finditer(response)]
    if not words:
        return None
    length = len(target.split())
    wanted = _squash(target)
    best: tuple[float, Span] | None = None
    for size in {max(1, round(length * factor)) for factor in (0.7, 0.85, 1.0, 1.15, 1.3)}:
        for first in range(0, max(1, len(words) - size + 1)):
            last = min(len(words), first + size) - 1
            span = (words[first][0], words[last][1])
            matcher = SequenceMatcher(None, wanted, _squash(response[span[0] : span[1]]))
            if matcher.real_quick_ratio() < min_ratio or matcher.quick_ratio() < min_ratio:
                continue
            ratio = matcher.ratio()
            if best is None or ratio > best[0]:
                best = (ratio, span)
    if best is None or best[0] < min_ratio:
        return None
    start, end = best[1]
    while end > start and response[end - 1] in ",;:":
        end -= 1
    return start, end
