"""Surface signals that a claim says something its evidence does not.

Embedding similarity is high for "open until 5 pm" versus "open until 7 pm" and for "offers
WiFi" versus "WiFi: no"; these are exactly the hallucinations that matter. The functions here
pull out what similarity misses: names, negation and a few antonym flips (quantities are
``audit_pipeline.specifics.quantities``).
"""

from __future__ import annotations

import re

from audit_pipeline.text import wordlists
from audit_pipeline.text.tokens import STOPWORDS, raw_tokens, stem

# The word lists are files in ``verification/words/`` (``text/wordlists.py`` reads them), each
# headed by what it is for; the names here are what the code reads.
# Words that negate what follows or state an absence ("not", "without", "lacks").
NEGATION_WORDS = wordlists.words("verification", "negation")


# Verbs and adjectives that state a negation in themselves (stems): "prohibited" says "not
# allowed", so a rewrite that says "not allowed" for it negates nothing.
DENYING_WORDS = frozenset(stem(word) for word in wordlists.words("verification", "denying"))


# Words that say how strongly or whether at all, not what: "cannot" and "must not" differ
# only in these (lowercased surface words and the stems of the denying ones).
MODAL_OR_NEGATION = (
    NEGATION_WORDS | DENYING_WORDS | wordlists.words("verification", "modal_or_negation")
)


# Words whose change turns what a sentence means without a negation: conditions, directions,
# comparisons and quantifiers ("unless" for "when", "down to" for "up to", "some" for
# "every"). A close rewrite that changes one of these is a matter for a model that reads.
MEANING_SHIFTS = wordlists.words("verification", "meaning_shifts")


def negation_count(text: str) -> int:
    count = 0
    for token in raw_tokens(text.replace("’", "'")):  # noqa: RUF001
        lowered = token.lower()
        if lowered in NEGATION_WORDS or lowered.endswith("n't"):
            count += 1
    return count


# Capitalised words that name nothing an answer can get wrong ("PM", day names).
_NOT_NAMES = wordlists.words("verification", "not_names")


_NAME_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?(?:[-_./][A-Za-z0-9]+)*")  # noqa: RUF001


def acronym_expansions(text: str) -> dict[str, list[str]]:
    """Runs of capitalised words keyed by their initials: "Fair Labor Standards Act" -> FLSA.

    Lets a claim that spells a name out match evidence that abbreviates it (and the reverse
    check is done by the caller with the evidence's own expansions).
    """
    runs: dict[str, list[str]] = {}
    current: list[str] = []
    last_end = 0

    def close() -> None:
        if len(current) >= 2:
            runs["".join(word[0] for word in current).lower()] = [w.lower() for w in current]
        current.clear()

    for match in _NAME_TOKEN.finditer(text):
        token = match.group()
        adjacent = not text[last_end : match.start()].strip()
        last_end = match.end()
        if not (token[0].isupper() and token.isalpha() and not token.isupper()):
            close()
            continue
        if not adjacent:
            close()
        current.append(token)
    close()
    return runs


def proper_names(text: str) -> list[str]:
    """Capitalised words that do not start a sentence (or follow a colon), lowercased."""
    names: list[str] = []
    for match in _NAME_TOKEN.finditer(text):
        token = match.group()
        before = text[: match.start()].rstrip()
        if not token[0].isupper() or not before or before[-1] in '.:!?"“(•-*#\n':
            continue
        lowered = token.lower()
        if lowered not in STOPWORDS and lowered not in _NOT_NAMES:
            names.append(lowered)
    return names


# Groups of spellings of one name ("us | usa | united states").
_ALIASES = wordlists.groups("verification", "name_aliases")
# Each word of a name mapped to the other spellings the evidence may use for it.
NAME_ALIASES: dict[str, frozenset[str]] = {}
for _group in _ALIASES:
    for _name in _group:
        for _word in _name.split():
            NAME_ALIASES[_word] = NAME_ALIASES.get(_word, frozenset()) | frozenset(_group)


# Pairs of opposites; where a word is in two pairs, the later one wins.
_ANTONYM_PAIRS = wordlists.groups("verification", "antonyms", size=2)
ANTONYMS: dict[str, str] = {}
for _left, _right in _ANTONYM_PAIRS:
    ANTONYMS[stem(_left)] = stem(_right)
    ANTONYMS[stem(_right)] = stem(_left)

# Opinion and inference words: a bot that "seems" or calls a place "popular" is often
# generalising beyond its context.
HEDGES = frozenset(stem(word) for word in wordlists.words("verification", "hedges"))

# Framing a summary adds without its source: "according to ...", "officials said" where the
# aligned evidence sentence attributes nothing, and times ("last week", "on Friday") the
# evidence never mentions. Matched on lowercased surface tokens, not stems.
ATTRIBUTION_WORDS = wordlists.words("verification", "attribution")
TEMPORAL_WORDS = wordlists.words("verification", "temporal")


def surface_words(text: str) -> set[str]:
    """Lowercased tokens with edge punctuation removed (no stemming, stopwords kept)."""
    return {token.lower().strip(".,;:!?'\"") for token in raw_tokens(text)}
