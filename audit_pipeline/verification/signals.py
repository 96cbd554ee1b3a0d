"""Surface signals that a claim says something its evidence does not.

Embedding similarity is high for "open until 5 pm" versus "open until 7 pm" and for "offers
WiFi" versus "WiFi: no"; these are exactly the hallucinations that matter. The functions here
pull out what similarity misses: quantities, names, negation and a few antonym flips.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from audit_pipeline.evidence.tokens import STOPWORDS, raw_tokens, stem

_MULTIPLIERS = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "m": 1e6,
    "mn": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
}
_NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "hundred": 100, "dozen": 12,
}  # fmt: skip
_AMPM = re.compile(r"(?<![\w.:])(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s?m\b\.?", re.IGNORECASE)
_CLOCK = re.compile(r"(?<![\w.:])(\d{1,2}):(\d{1,2})(?![\d])")
_NUMBER = re.compile(
    r"(?<![\w.])(?<![A-Za-z]-)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?!\.?\d)"
    r"(?:\s*(?:%|percent\b|per cent\b))?"
    r"(?:\s*(thousand|million|billion|trillion|mn|bn|k|m|b)\b)?",
    re.IGNORECASE,
)
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
# "out of 5" is a scale; "passage 2", "step 3" are labels of the context, not facts.
_OUT_OF = re.compile(
    r"(?:\bout of|\b(?:passages?|sources?|documents?|sections?|steps?|items?|options?|"
    r"chapters?|parts?|reviews?|#)\s*:?(?:\s*\d+\s*(?:,|and|or|to|-|&))*)\s*$",
    re.IGNORECASE,
)

Key = tuple[str, float]


@dataclass(frozen=True)
class Quantity:
    """A number, percentage or time of day as it appears, with the values it may stand for."""

    surface: str
    keys: frozenset[Key]


def _time_keys(hour: int, minute: int, meridiem: str | None) -> frozenset[Key]:
    hours: set[int] = set()
    if meridiem:
        base = hour % 12
        hours.add(base + (12 if meridiem.lower() == "p" else 0))
    else:
        hours.add(hour)
        if hour <= 12:
            hours.add(hour + 12)
    keys: set[Key] = {("t", float(h * 60 + minute)) for h in hours}
    if minute == 0:
        # "opens at 9" and "9 am" state the same hour.
        keys.update(("n", float(h)) for h in hours)
        keys.add(("n", float(hour)))
    return frozenset(keys)


def quantities(text: str) -> list[Quantity]:
    """Numbers, times and percentages of ``text``; "out of 5" scale denominators are skipped."""
    found: list[Quantity] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    for match in _AMPM.finditer(text):
        hour, minute = int(match.group(1)), int(match.group(2) or 0)
        if 1 <= hour <= 12 and minute < 60:
            found.append(Quantity(match.group(0), _time_keys(hour, minute, match.group(3))))
            taken.append(match.span())
    for match in _CLOCK.finditer(text):
        hour, minute = int(match.group(1)), int(match.group(2))
        if _OUT_OF.search(text, 0, match.start()):
            taken.append(match.span())
            continue
        if free(*match.span()) and hour <= 24 and minute < 60:
            found.append(Quantity(match.group(0), _time_keys(hour, minute, None)))
            taken.append(match.span())
    for match in _NUMBER.finditer(text):
        if not free(*match.span()) or _OUT_OF.search(text, 0, match.start()):
            continue
        value = float(match.group(1).replace(",", "") + "." + (match.group(2) or "0"))
        multiplier = _MULTIPLIERS.get((match.group(3) or "").lower(), 1.0)
        keys = {("n", value), ("n", value * multiplier)}
        if value == int(value) and value <= 24:
            keys.add(("t", value * 60))
            keys.add(("t", (value + 12) * 60))
        found.append(Quantity(match.group(0).strip(), frozenset(keys)))
        taken.append(match.span())
    for match in _NUMBER_WORD.finditer(text):
        if _OUT_OF.search(text, 0, match.start()):
            continue
        value = float(_NUMBER_WORDS[match.group(1).lower()])
        found.append(Quantity(match.group(0), frozenset({("n", value)})))
    return found


def quantity_keys(text: str) -> set[Key]:
    keys: set[Key] = set()
    for quantity in quantities(text):
        keys.update(quantity.keys)
    return keys


def is_near(quantity: Quantity, keys: set[Key], tolerance: float = 0.05) -> bool:
    """True when an evidence value is within ``tolerance`` (relative): rounding, "about"."""
    for kind, value in quantity.keys:
        for other_kind, other in keys:
            if kind == other_kind and abs(value - other) <= tolerance * max(abs(other), 1e-9):
                return True
    return False


NEGATION_WORDS = frozenset(
    [
        "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot",
        "can't", "won't", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't",
        "hasn't", "haven't", "hadn't", "shouldn't", "wouldn't", "couldn't", "false", "lack",
        "lacks", "lacking", "unable", "fail", "fails", "failed", "absent", "unavailable",
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
