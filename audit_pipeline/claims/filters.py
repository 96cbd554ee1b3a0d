"""What is not a claim: pleasantries, questions, refusals, lead-ins, headings, citation markers.

Verifying "Hello! Happy to help." or "I don't have that information." against the vault would
only produce false "unsupported" verdicts, and a correct refusal is the behaviour we want from a
bot, not a hallucination. Citation markers are provenance, not content: they are cut out of
claim spans so the verifier judges the statement, and the citation checks live elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from audit_pipeline.claims.sentences import Span

_CITATION_PATTERNS = (
    r"\[\s*(?:sources?|refs?|references?|cite|citations?|doc|docs?)\s*:[^\]\n]*\]",
    r"\[\^?\d+(?:\s*[,–-]\s*\d+)*\]",  # noqa: RUF001
    r"【[^】\n]*】",
    r"\(\s*(?:sources?|see|ref|cf\.)\s*:[^)\n]*\)",
    r"\[[^\]\s]+\.(?:md|txt|pdf|html?|rst|docx?)(?:#[^\]\n]*)?\]",
    r"\(\s*(?:passages?|sources?|documents?|docs?|refs?)\s*\d+(?::\d+)?"
    r"(?:\s*(?:,|and|&)\s*(?:passages?\s*)?\d+(?::\d+)?)*\s*\)",
)
CITATION_MARKER = re.compile("|".join(_CITATION_PATTERNS), re.IGNORECASE)

_GREETING_WORDS = (
    r"(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening)|sure|certainly|of course"
    r"|absolutely|okay|ok|great question|good question|thanks?(?: you)?"
    r"(?: for (?:asking|your question|reaching out))?|you're welcome|happy to help"
    r"|glad to help|no problem)"
)
# A whole sentence that is only a greeting ("Sure!", "Hi there.").
_GREETING = re.compile(rf"^{_GREETING_WORDS}(?:\s+there)?\s*[.!,]*$", re.IGNORECASE)
# A greeting glued to a statement ("Sure, the store opens at 9."): cut from the claim span.
# Used with ``Pattern.match(text, pos)``, so it is anchored at ``pos`` without a caret.
LEADING_INTERJECTION = re.compile(
    rf"(?:{_GREETING_WORDS}|yes|well)\s*[,!.]\s+(?=\S)", re.IGNORECASE
)
_PLEASANTRY = re.compile(
    r"^(?:i hope (?:this|that) helps|let me know if|feel free to|is there anything else"
    r"|i(?:'d| would| will|'ll)? (?:be )?(?:happy|glad|able) to help|i can help"
    r"|happy to help|here(?:'s| is) (?:how|what) (?:you|i)\b"
    r"|please let me know|if you have any (?:other|more|further) questions"
    r"|don't hesitate to|do not hesitate to|hope this helps)",
    re.IGNORECASE,
)
# Generic "I cannot answer" sentences: a bot declining is not a factual claim.
_FALLBACK = re.compile(
    r"(?:\bi (?:do not|don't|didn't|cannot|can't|am unable to|am not able to|'m unable to"
    r"|'m not able to) (?:have|find|know|answer|provide|say|determine|locate|access)\b"
    r"|\bi'?m (?:sorry|afraid)\b.*\b(?:not|no|unable|cannot|can't|don't)\b"
    r"|\b(?:no|not enough|insufficient) (?:information|details|data|context)\b.*"
    r"\b(?:available|provided|given|found|mentioned)\b"
    r"|\b(?:is|are) not (?:mentioned|provided|specified|stated|included|available|given)"
    r" in the (?:provided |given )?(?:\w+ )?(?:context|passages?|documents?|sources?|text|data)"
    r"|\bthe (?:provided |given )?(?:\w+ )?(?:context|passages?|documents?|sources?|text|data)"
    r" (?:does|do) not (?:provide|mention|contain|include|specify|say|state)\b"
    r"|\bunable to (?:answer|provide|find|determine)\b"
    r"|\b(?:is|are|was|were) not (?:specified|mentioned|provided|stated|listed|given|known)\b"
    r"|\b(?:does|do|did) not (?:provide|give|contain|include|offer) (?:any )?(?:specific |further "
    r"|additional |more )?(?:information|details|data)\b"
    r"|\b(?:does|do|did) not (?:specify|mention|say|state|indicate|include information)"
    r" (?:whether|if|what|how|when|where|which|any|the)\b"
    r"|\b(?:don't|do not) have (?:that|this|any|enough|the) (?:information|details|data)\b)",
    re.IGNORECASE,
)
_LEAD_IN_END = re.compile(r":\s*[*_`]*\s*$")


def normalise(text: str) -> str:
    """Lowercase, collapse whitespace, drop edge punctuation: for comparing configured strings."""
    return re.sub(r"\s+", " ", text).strip().strip(".!?,;:\"' ").lower()


def citation_holes(response: str) -> list[Span]:
    return [match.span() for match in CITATION_MARKER.finditer(response)]


def fallback_holes(response: str, fallback_sentences: Iterable[str]) -> list[Span]:
    """Spans where a configured fallback sentence occurs, matched whitespace- and case-blind."""
    holes: list[Span] = []
    for sentence in fallback_sentences:
        words = [re.escape(word) for word in normalise(sentence).split()]
        if not words:
            continue
        pattern = re.compile(r"\s+".join(words) + r"[.!?]*", re.IGNORECASE)
        holes.extend(match.span() for match in pattern.finditer(response))
    return holes


def is_non_factual(
    text: str, fallback_sentences: Sequence[str] = (), *, check_refusal: bool = True
) -> bool:
    """True for a sentence that states nothing checkable against evidence.

    ``check_refusal=False`` skips the refusal patterns: a long sentence is tested for them
    clause by clause, so "X is Y, but no information is available about Z" keeps "X is Y".
    """
    stripped = text.strip().strip("*_`>\"'“”").strip()
    if not re.search(r"[A-Za-z0-9]", stripped):
        return True
    if stripped.rstrip(")\"'”’").endswith("?"):  # noqa: RUF001
        return True
    if _LEAD_IN_END.search(stripped):
        return True
    if _GREETING.match(stripped) or _PLEASANTRY.match(stripped):
        return True
    if check_refusal and _FALLBACK.search(stripped):
        return True
    norm = normalise(stripped)
    return any(norm == normalise(sentence) for sentence in fallback_sentences)
