"""Surface signals that a claim says something its evidence does not.

Embedding similarity is high for "open until 5 pm" versus "open until 7 pm" and for "offers
WiFi" versus "WiFi: no"; these are exactly the hallucinations that matter. The functions here
pull out what similarity misses: names, negation and a few antonym flips (quantities are
``audit_pipeline.specifics.quantities``).
"""

from __future__ import annotations

import re

from audit_pipeline.text.tokens import STOPWORDS, raw_tokens, stem

NEGATION_WORDS = frozenset(
    [
        "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot",
        "can't", "won't", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't",
        "hasn't", "haven't", "hadn't", "shouldn't", "wouldn't", "couldn't", "false", "lack",
        "lacks", "lacking", "unable", "fail", "fails", "failed", "absent", "unavailable",
    ]
)  # fmt: skip


# Verbs and adjectives that state a negation in themselves (stems): "prohibited" says "not
# allowed", so a rewrite that says "not allowed" for it negates nothing.
DENYING_WORDS = frozenset(
    stem(word)
    for word in [
        "prohibit", "forbid", "ban", "disable", "disallow", "deny", "refuse", "reject", "decline",
        "exclude", "prohibited", "forbidden", "banned", "disabled", "impossible", "unavailable",
    ]
)  # fmt: skip


# Words that say how strongly or whether at all, not what: "cannot" and "must not" differ
# only in these (lowercased surface words and the stems of the denying ones).
MODAL_OR_NEGATION = (
    NEGATION_WORDS
    | DENYING_WORDS
    | frozenset(
        [
            "must", "may", "might", "can", "could", "should", "shall", "will", "would", "need",
            "needs", "have", "has", "to", "be", "is", "are", "was", "were", "been", "do", "does",
            "did", "allowed", "permitted", "required", "prohibited", "forbidden", "never",
        ]
    )
)  # fmt: skip


# Words whose change turns what a sentence means without a negation: conditions, directions,
# comparisons and quantifiers ("unless" for "when", "down to" for "up to", "some" for
# "every"). A close rewrite that changes one of these is a matter for a model that reads.
MEANING_SHIFTS = frozenset(
    [
        "when", "whenever", "unless", "if", "until", "before", "after", "once", "while",
        "up", "down", "higher", "lower", "increase", "decrease", "increases", "decreases",
        "more", "less", "fewer", "above", "below", "over", "under", "maximum", "minimum",
        "least", "most", "all", "some", "every", "each", "any", "none", "few", "several", "many",
        "always", "never", "sometimes", "often", "rarely", "earlier", "later", "first", "last",
    ]
)  # fmt: skip


def negation_count(text: str) -> int:
    count = 0
    for token in raw_tokens(text.replace("’", "'")):  # noqa: RUF001
        lowered = token.lower()
        if lowered in NEGATION_WORDS or lowered.endswith("n't"):
            count += 1
    return count


_NOT_NAMES = frozenset(
    ["am", "pm", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
)


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


_ALIASES = (
    ("us", "u.s", "usa", "u.s.a", "america", "united states"),
    ("uk", "u.k", "britain", "british", "united kingdom", "england"),
    ("eu", "european union", "europe"),
    ("un", "united nations"),
    ("al", "alabama"), ("ak", "alaska"), ("az", "arizona"), ("ar", "arkansas"),
    ("ca", "california"), ("co", "colorado"), ("ct", "connecticut"), ("de", "delaware"),
    ("fl", "florida"), ("ga", "georgia"), ("hi", "hawaii"), ("id", "idaho"),
    ("il", "illinois"), ("in", "indiana"), ("ia", "iowa"), ("ks", "kansas"),
    ("ky", "kentucky"), ("la", "louisiana"), ("me", "maine"), ("md", "maryland"),
    ("ma", "massachusetts"), ("mi", "michigan"), ("mn", "minnesota"), ("ms", "mississippi"),
    ("mo", "missouri"), ("mt", "montana"), ("ne", "nebraska"), ("nv", "nevada"),
    ("nh", "new hampshire"), ("nj", "new jersey"), ("nm", "new mexico"), ("ny", "new york"),
    ("nc", "north carolina"), ("nd", "north dakota"), ("oh", "ohio"), ("ok", "oklahoma"),
    ("or", "oregon"), ("pa", "pennsylvania"), ("ri", "rhode island"),
    ("sc", "south carolina"), ("sd", "south dakota"), ("tn", "tennessee"), ("tx", "texas"),
    ("ut", "utah"), ("vt", "vermont"), ("va", "virginia"), ("wa", "washington"),
    ("wv", "west virginia"), ("wi", "wisconsin"), ("wy", "wyoming"),
)  # fmt: skip
# Each word of a name mapped to the other spellings the evidence may use for it.
NAME_ALIASES: dict[str, frozenset[str]] = {}
for _group in _ALIASES:
    for _name in _group:
        for _word in _name.split():
            NAME_ALIASES[_word] = NAME_ALIASES.get(_word, frozenset()) | frozenset(_group)


_ANTONYM_PAIRS = (
    ("increase", "decrease"), ("rise", "fall"), ("higher", "lower"), ("more", "less"),
    ("before", "after"), ("open", "closed"), ("allow", "prohibit"), ("available", "unavailable"),
    ("true", "false"), ("largest", "smallest"), ("first", "last"), ("win", "lose"),
    ("accept", "reject"), ("maximum", "minimum"), ("above", "below"), ("early", "late"),
    ("gain", "loss"), ("positive", "negative"), ("success", "failure"), ("male", "female"),
    ("buy", "sell"), ("import", "export"), ("enable", "disable"), ("include", "exclude"),
    ("add", "remove"), ("start", "end"), ("north", "south"), ("east", "west"),
    ("young", "old"), ("cheap", "expensive"), ("fast", "slow"), ("guilty", "innocent"),
    ("mother", "father"), ("son", "daughter"), ("husband", "wife"), ("brother", "sister"),
    ("yes", "no"), ("alive", "dead"), ("won", "lost"), ("best", "worst"), ("good", "bad"),
    ("public", "private"), ("internal", "external"), ("approve", "reject"), ("grant", "deny"),
    ("earlier", "later"), ("with", "without"), ("if", "unless"), ("inside", "outside"),
    ("mandatory", "optional"), ("required", "optional"), ("permanent", "temporary"),
    ("automatic", "manual"), ("upper", "lower"), ("full", "partial"), ("primary", "secondary"),
    ("always", "never"), ("all", "none"), ("pass", "fail"), ("online", "offline"),
    ("encrypted", "unencrypted"), ("inbound", "outbound"), ("least", "most"),
)  # fmt: skip
ANTONYMS: dict[str, str] = {}
for _left, _right in _ANTONYM_PAIRS:
    ANTONYMS[stem(_left)] = stem(_right)
    ANTONYMS[stem(_right)] = stem(_left)

# Opinion and inference words: a bot that "seems" or calls a place "popular" is often
# generalising beyond its context.
HEDGES = frozenset(
    stem(word)
    for word in [
        "may", "might", "could", "likely", "seems", "seem", "appears", "appear", "probably",
        "possibly", "overall", "popular", "known", "renowned", "famous", "perfect", "ideal",
        "great", "excellent", "delicious", "cozy", "friendly", "wonderful", "amazing",
        "recommend", "suggests", "suggest", "indicates", "indicating", "implying", "generally",
        "typically", "usually", "often", "various", "variety", "wide", "diverse", "solid",
        "reputation",
    ]
)  # fmt: skip

# Framing a summary adds without its source: "according to ...", "officials said" where the
# aligned evidence sentence attributes nothing, and times ("last week", "on Friday") the
# evidence never mentions. Matched on lowercased surface tokens, not stems.
ATTRIBUTION_WORDS = frozenset(
    [
        "according", "said", "says", "stated", "told", "claimed", "reported", "announced",
        "confirmed", "added", "explained", "noted", "described", "revealed",
    ]
)  # fmt: skip
TEMPORAL_WORDS = frozenset(
    [
        "yesterday", "today", "tomorrow", "tonight", "recently", "last", "next", "earlier",
        "later", "ago", "previously", "currently", "week", "weekend", "month", "year",
        "morning", "afternoon", "evening", "night", "decade", "annual", "annually", "daily",
        "weekly", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        "january", "february", "march", "april", "june", "july", "august", "september",
        "october", "november", "december",
    ]
)  # fmt: skip


def surface_words(text: str) -> set[str]:
    """Lowercased tokens with edge punctuation removed (no stemming, stopwords kept)."""
    return {token.lower().strip(".,;:!?'\"") for token in raw_tokens(text)}
