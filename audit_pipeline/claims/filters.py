"""What is not a claim: pleasantries, questions, refusals, deflections, lead-ins, headings, cites.

Verifying "Hello! Happy to help." or "I don't have that information." against the vault would
only produce false "unsupported" verdicts, and a correct refusal is the behaviour we want from a
bot, not a hallucination. Citation markers are provenance, not content: they are cut out of
claim spans so the verifier judges the statement, and the citation checks live elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from audit_pipeline.text.sentences import Span

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
# "I don't have" is a refusal when what the bot lacks is information or access ("I don't have
# that information", "... access to your account"); "No, I do not have a current SOC 2 report"
# denies the thing asked about, and is a claim to check.
_INFORMATION = (
    r"(?:that |this |any |enough |the |such |specific |further |additional |more |current "
    r"|real-time |up-to-date |direct |personal )*(?:information|info|details|data|knowledge"
    r"|access|answer|context|records?|visibility|insight|figures|specifics|way)\b"
)
_FALLBACK = re.compile(
    r"(?:\bi (?:do not|don't|didn't|cannot|can't|am unable to|am not able to|'m unable to"
    r"|'m not able to) (?:find|know|answer|provide|say|determine|locate|access)\b"
    r"|\bi (?:do not|don't|didn't|cannot|can't|am unable to|am not able to|'m unable to"
    r"|'m not able to) have " + _INFORMATION +
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
# The bot declining, deflecting to a person, stalling or talking about itself. Each pattern has
# to cover the whole sentence (a short tail of plain words, no comma), so "I can't share that,
# but the office opens at 9" is left to the clause splitter, and is only tried on a sentence
# without a concrete detail (``_CONCRETE``): "Contact support within 30 days" is a rule.
_TAIL = r"(?:\s+[^\s,;:]+){0,12}\s*[.!…]*$"
_I_WONT = (
    r"i\s*(?:'m|am)?\s*(?:do not|don't|cannot|can't|can not|won't|will not|unable to"
    r"|not able to|not allowed to|not permitted to|not authori[sz]ed to|must not|may not"
    r"|should not|shouldn't)\b"
)
_NOT_A_CLAIM = re.compile(
    "|".join(
        (
            # "I can't share that.", "Sorry, I won't provide credentials."
            r"^(?:(?:i'm |i am )?(?:sorry|unfortunately|apologies),?\s+(?:but\s+)?)?"
            + _I_WONT
            + r"\s+(?:be able to\s+)?(?:share|disclose|provide|give|help|assist|discuss|reveal"
            r"|comment|answer|offer|release|send|go into|talk about|access|look up|retrieve"
            r"|do)\b" + _TAIL,
            # "Please contact your account manager for details.", "You can reach our support
            # team at the help desk." -- addressed to the user; "Customers must contact ..." is
            # a rule and stays.
            r"^(?:please\s+|kindly\s+)?(?:you\s+(?:can|could|may|might|should|will need to"
            r"|need to)\s+(?:also\s+)?|i\s+(?:would\s+|'d\s+)?(?:recommend|suggest)\s+"
            r"(?:that\s+)?(?:you\s+)?|feel free to\s+)?(?:(?:contact|reach)(?:ing)?"
            r"(?:\s+out\s+to)?|get(?:ting)? in touch with|speak(?:ing)? (?:to|with)"
            r"|talk(?:ing)? to|consult(?:ing)?|check(?:ing)? with|call(?:ing)?|email(?:ing)?)\s+"
            r"(?:(?:the|your|our|a|an)\s+)?(?:[\w'-]+\s+){0,2}?(?:support|help\s?desk"
            r"|service\s?desk|customer\s+(?:service|care|success)|account\s+manager|manager"
            r"|administrator|admin|representative|team|sales|agent|specialist|provider"
            r"|department|us|them)(?:\s+(?:team|desk|department|staff|directly))?"
            r"(?:\s+(?:for|about|regarding|at|via|through|by|if|with|on)\b[^.!?]*)?[.!]*$",
            # "Let me check that for you."
            r"^let me (?:check|look|see|find|verify|confirm|pull|get|search|dig)\b" + _TAIL,
            # "That's outside what I can help with.", "That's not something I can do."
            r"^(?:that|this|it|your (?:question|request))(?:'s| is| falls)\s+(?:outside|beyond"
            r"|out of|not (?:something|within|part of|in))\b[^,;:]*\b(?:i|me|my)\b" + _TAIL,
            # "As an AI, I don't have access to ...", "I'm just an AI language model."
            r"^as an? (?:ai|artificial intelligence|(?:ai |large )?language model|(?:ai "
            r"|virtual )?assistant|chatbot|bot)\b[^,]*,\s*(?:"
            + _I_WONT
            + r"|i (?:have no|lack)\b)",
            r"^i\s*(?:'m|am)\s+(?:just\s+|only\s+|merely\s+)?an?\s+(?:ai|artificial"
            r" intelligence|(?:ai |large )?language model|(?:ai |virtual )?assistant|chatbot)\b",
            # "Here is a summary of the policy." (with a colon it is a lead-in already).
            r"^here(?:'s| is| are)\s+(?:a |an |the )?(?:quick |short |brief )?(?:summary"
            r"|overview|breakdown|rundown|list)\b" + _TAIL,
        )
    ),
    re.IGNORECASE,
)
_CONCRETE = re.compile(r"\d|@|https?://|www\.", re.IGNORECASE)


def normalise(text: str) -> str:
    """Lowercase, collapse whitespace, drop edge punctuation: for comparing configured strings."""
    return re.sub(r"\s+", " ", text).strip().strip(".!?,;:\"' ").lower()


def citation_holes(response: str) -> list[Span]:
    return [match.span() for match in CITATION_MARKER.finditer(response)]


# "Did you mean: Key Rotation (encryption-standard.md); ...?": a list of suggestions (the vault
# bot's guardrail appends one to an abstention) is a question, however its titles punctuate.
_SUGGESTIONS = re.compile(r"\bdid you mean\b[^?\n]*\?", re.IGNORECASE)


def suggestion_holes(response: str) -> list[Span]:
    return [match.span() for match in _SUGGESTIONS.finditer(response)]


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
    stripped = text.strip().strip("*_`>\"'“”").strip().replace("’", "'")  # noqa: RUF001
    if not re.search(r"[A-Za-z0-9]", stripped):
        return True
    if stripped.rstrip(")\"'”’").endswith("?"):  # noqa: RUF001
        return True
    if _LEAD_IN_END.search(stripped):
        return True
    if _GREETING.match(stripped) or _PLEASANTRY.match(stripped):
        return True
    if _NOT_A_CLAIM.search(stripped) and not _CONCRETE.search(stripped):
        return True
    if check_refusal and _FALLBACK.search(stripped):
        return True
    norm = normalise(stripped)
    return any(norm == normalise(sentence) for sentence in fallback_sentences)
