"""Numbers, measurements, times of day and numbered names in text, with the values they stand
for.

"2 mm" is not "2 hours", "TLS 1.2" is a name and not an amount, "Para 9-2" says where a fact is
and not what it is: every check that compares a claim's numbers with its evidence's needs these
distinctions, so they are made once, here, for the evidence stage and the verifier alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from audit_pipeline.specifics.measures import base_amount, unit_scale
from audit_pipeline.text import wordlists
from audit_pipeline.text.sentences import trim

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
# Words that state a number by themselves, with their values (``specifics/words/``, read by
# ``text/wordlists.py``).
_NUMBER_WORDS = wordlists.pairs("specifics", "number_words", int)
# Units that make a number a measurement: "2 mm" is not "2 hours". Canonical name, spellings.
_UNIT_ALIASES = (
    ("%", r"%|percent\b|per\s?cent\b"),
    ("mm", r"mm\b|millimet(?:er|re)s?\b"),
    ("cm", r"cm\b|centimet(?:er|re)s?\b"),
    ("km", r"km\b|kilomet(?:er|re)s?\b"),
    ("metre", r"met(?:er|re)s?\b"),
    ("inch", r"inch(?:es)?\b"),
    ("ft", r"ft\b|feet\b|foot\b"),
    ("kg", r"kg\b|kilo(?:gram)?s?\b"),
    ("mg", r"mg\b|milligrams?\b"),
    # A lone "g" only in lower case: "5G" is a network, "5 g" a weight.
    ("gram", r"grams?\b|(?-i:g)\b"),
    ("tonne", r"tonnes?\b|metric\s+tons?\b"),
    ("lb", r"lbs?\b"),
    ("oz", r"oz\b|ounces?\b"),
    ("ml", r"ml\b|millilit(?:er|re)s?\b"),
    ("litre", r"lit(?:er|re)s?\b"),
    ("mile", r"miles?\b"),
    ("ms", r"ms\b|milliseconds?\b"),
    ("second", r"seconds?\b|secs?\b"),
    ("minute", r"minutes?\b|mins?\b"),
    ("hour", r"hours?\b|hrs?\b|h\b"),
    ("day", r"days?\b"),
    ("week", r"weeks?\b|wks?\b"),
    ("fortnight", r"fortnights?\b"),
    ("month", r"months?\b|mos?\b"),
    ("year", r"years?\b|yrs?\b"),
    ("kb", r"kb\b|kilobytes?\b"),
    ("mb", r"mb\b|megabytes?\b"),
    ("gb", r"gb\b|gigabytes?\b"),
    ("tb", r"tb\b|terabytes?\b"),
    ("mbps", r"mbps\b|mbit/s\b"),
    ("gbps", r"gbps\b|gbit/s\b"),
    ("°c", r"°\s?c\b|degrees?\s+c(?:elsius)?\b"),
    ("°f", r"°\s?f\b|degrees?\s+f(?:ahrenheit)?\b"),
    ("$", r"dollars?\b|usd\b"),
    ("€", r"euros?\b|eur\b"),
    ("£", r"gbp\b|pounds? sterling\b"),
)
_UNIT_NAMES = tuple(name for name, _ in _UNIT_ALIASES)
_ANY_UNIT = "|".join(alias for _, alias in _UNIT_ALIASES)
# After the number: "3 mm", "3mm", "30-day", "2,000 operating hours".
_UNIT = re.compile(
    r"(?:[^\S\n]*|-)(?:(?:business|working|calendar|operating|consecutive|additional|more"
    r"|extra)\s+)?(?:"
    + "|".join(f"(?P<u{i}>{alias})" for i, (_, alias) in enumerate(_UNIT_ALIASES))
    + ")",
    re.IGNORECASE,
)
_CURRENCY_BEFORE = re.compile(
    r"(?:(?:\b(a|au|c|ca|nz|us|hk|s))?([$€£¥₹])|\b(usd|eur|gbp|aud|cad|nzd|chf|jpy|inr|hkd|sgd))"
    r"[^\S\n]?$",
    re.IGNORECASE,
)
# Each currency under one name: "A$190" and "AUD 190" are the same amount, "$190" is not.
_CURRENCY = {
    "$": "$", "us$": "$", "usd": "$", "€": "€", "eur": "€", "£": "£", "gbp": "£",
    "a$": "A$", "au$": "A$", "aud": "A$", "c$": "C$", "ca$": "C$", "cad": "C$",
    "nz$": "NZ$", "nzd": "NZ$", "hk$": "HK$", "hkd": "HK$", "s$": "S$", "sgd": "S$",
    "¥": "¥", "jpy": "¥", "₹": "₹", "inr": "₹", "chf": "CHF",
}  # fmt: skip
CURRENCY_UNITS = frozenset(_CURRENCY.values())
# "2-3 days", "14 or 30 days": the first number is measured in the second one's unit.
_RANGE_NEXT = re.compile(
    r"[^\S\n]*(?:-|\u2013|to|or)[^\S\n]*[$€£]?\d[\d,]*(?:\.\d+)?"
    r"(?:[^\S\n]*(?:thousand|million|billion|k|m|bn)\b)?",
    re.IGNORECASE,
)

# Where a document is, not what it says: "Para 9-2", "Section 4.3", "§ 5", "clause 12(b)",
# list ordinals at the start of a line ("1.", "2)", "- 3.") and numbered headings ("## 4.2").
_REF_LABEL = (
    r"(?:[A-Z]\.?)?\d+(?:[.\-\u2013]\d+)*[a-z]?(?:\([a-z0-9]+\))*(?!\.?\d)"
    rf"(?!\s*(?:{_ANY_UNIT}))"  # "parts 2 years" is a warranty, not a reference
)
_REFERENCE = re.compile(
    r"(?:\b(?:para(?:graph)?s?|para\.|sections?|sec\.|chapters?|ch\.|articles?|art\.|clauses?"
    r"|steps?|tables?|figures?|figs?\.|appendix|appendices|annex(?:es)?|parts?|pages?|pp?\."
    r"|schedules?|rules?)|§§?|¶)[^\S\n]*(?:no\.\s*)?"
    + _REF_LABEL
    + r"(?:\s*(?:,|and|or|to|through|&|-|\u2013)\s*"
    + _REF_LABEL
    + ")*",
    re.IGNORECASE,
)
_ORDINAL = re.compile(r"^[ \t>]*(?:[-*+•][ \t]+)?\(?\d{1,3}[.)](?=\s|$)", re.MULTILINE)
_HEADING_NUMBER = re.compile(
    rf"^[ \t]*#{{1,6}}[ \t]*\d{{1,3}}(?:\.\d{{1,3}})*\.?(?=\s)(?!\s*(?:{_ANY_UNIT}))",
    re.MULTILINE | re.IGNORECASE,
)
# Names with a number in them compare as whole names, never as amounts: "ISO 27001",
# "SOC 2", "TLS 1.2", "TLS version 1.2", "v2.1", "version 3.4.1". "TLS 1.3" against
# evidence "TLS 1.2" is unseen; "1.2" no longer matches "1.2 seconds".
_ACRONYM_ID = re.compile(
    r"\b(?!(?:USD|EUR|GBP|AUD|CAD|NZD|CHF|JPY|INR|HKD|SGD|AM|PM)\b)([A-Z]{2,6})(?:/[A-Z]{2,6})*\)?"
    r"(?:\s+(?i:version|ver\.|v)\s?|\s?v?)(\d+(?:[.-]\d+)*)(?::\d{4})?(?![.-]?\d)(?!\w)"
    rf"(?!(?i:[^\S\n]*(?:{_ANY_UNIT})))"
)
# A further version of the same name right after it: "and 1.1", ", 1.2", "/1.3", "or v2".
_ID_CONTINUATION = re.compile(r"\s*(?:,|/|and|or|&)\s*v?(\d+(?:\.\d+)+)(?![.-]?\d)(?!\w)")
_TRAILING_ZEROS = re.compile(r"(?:\.0)+$")
_VERSION_ID = re.compile(r"\b(?:version|ver\.|v)\s?(\d+(?:\.\d+)*)(?!\.?\d)(?!\w)", re.IGNORECASE)

_AMPM = re.compile(r"(?<![\w.:])(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s?m\b\.?", re.IGNORECASE)
_CLOCK = re.compile(r"(?<![\w.:])(\d{1,2}):(\d{1,2})(?![\d])")
_NUMBER = re.compile(
    r"(?<![\w.])(?<![A-Za-z]-)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?!\.?\d)"
    r"(?:\s*(thousand|million|billion|trillion|mn|bn|k|m|b)\b)?",
    re.IGNORECASE,
)
# Every word that states a number by itself.
NUMBER_WORDS = frozenset([*_NUMBER_WORDS, "one"])
_TENS = wordlists.sequence("specifics", "tens")
# In order: the n-th ones word stands for n.
_ONES = wordlists.sequence("specifics", "ones")
# "twenty-four", "forty eight": a tens word and a ones word are one number.
_COMPOUND_NUMBER_WORD = re.compile(
    rf"\b({'|'.join(_TENS)})[-\s]({'|'.join(_ONES)})\b", re.IGNORECASE
)
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
# "one" is a number only before a unit ("one week"); elsewhere it is a pronoun.
_ONE_BEFORE_UNIT = re.compile(r"\b(one)\b(?=[^\S\n]+(?:[a-z]+[^\S\n]+)?[a-z]+)", re.IGNORECASE)
# "for a year", "within an hour": an article right after a word that takes a span of time
# or an amount states one unit. Elsewhere an article before a unit is a rate ("£25 a month",
# "once a year"), never an amount.
_ARTICLE_AMOUNT = re.compile(
    r"\b(?:for|within|in|after|over|under|about|around|than|by|lasts?|lasting|takes?|taking)"
    r"[^\S\n]+(an?)\b",
    re.IGNORECASE,
)
# "two and a half days", "1 and a half hours"; "half an hour", "half a day".
_AND_A_HALF = re.compile(
    rf"(?<![\w.])(\d+|{_COMPOUND_NUMBER_WORD.pattern}|"
    + "|".join(_NUMBER_WORDS)
    + r"|one|an?)[^\S\n]+and[^\S\n]+a[^\S\n]+half\b",
    re.IGNORECASE,
)
_HALF_AN = re.compile(r"\bhalf[^\S\n]+an?\b", re.IGNORECASE)
# "an hour and a half", "one year and a half": half a unit more.
_AND_A_HALF_AFTER = re.compile(r"[^\S\n]+and[^\S\n]+a[^\S\n]+half\b", re.IGNORECASE)
# A share said in words: "three quarters of an hour" is an amount (45 minutes); "half the
# cost" is the percentage a restatement may write instead ("50% of the cost"), though not an
# amount of its own: "a fifth of the Premier limit" asks for arithmetic, not a figure the
# evidence must state. ("a quarter" alone is a period: "once a quarter".)
_FRACTION_WORDS = wordlists.pairs("specifics", "fraction_words", lambda v: float(Fraction(v)))
_FRACTION = "|".join(re.escape(w) for w in _FRACTION_WORDS)
_FRACTION_OF_UNIT = re.compile(rf"\b({_FRACTION})[^\S\n]+of[^\S\n]+an?\b", re.IGNORECASE)
_FRACTION_SHARE = re.compile(rf"\b({_FRACTION})(?=[^\S\n]+(?:of|the)\b)", re.IGNORECASE)
# "1 in 1,000 people", "one in every five": a rate a restatement may write as a percentage
# ("0.1%", "20%"); "1 in 10 days" is a count of days, left to the numbers.
_ONE_IN = re.compile(
    r"(?<![\w.,])(\d+|a|one|" + "|".join(_NUMBER_WORDS) + r")[^\S\n]+in[^\S\n]+(?:every[^\S\n]+)?"
    r"(\d{1,3}(?:,\d{3})+|\d+|" + "|".join(_NUMBER_WORDS) + r")\b(?![.,]\d)",
    re.IGNORECASE,
)
# "SOC two" is SOC 2 spelled out: the same identifier, not a count of two.
_ACRONYM_WORD_ID = re.compile(
    r"\b(?!(?:USD|EUR|GBP|AUD|CAD|NZD|CHF|JPY|INR|HKD|SGD|AM|PM)\b)([A-Z]{2,6})\s+("
    + "|".join(_NUMBER_WORDS)
    + r")\b"
    rf"(?!(?i:[^\S\n]*(?:{_ANY_UNIT})))"
)
# "out of 5" is a scale; "passage 2", "step 3" are labels of the context, not facts.
_OUT_OF = re.compile(
    r"(?:\bout of|\b(?:passages?|sources?|documents?|sections?|steps?|items?|options?|"
    r"chapters?|parts?|reviews?|#)\s*:?(?:\s*\d+\s*(?:,|and|or|to|-|&))*)\s*$",
    re.IGNORECASE,
)

# ("n", 2.0): a bare number; ("n:mm", 2.0): 2 mm; ("t", 540.0): 9:00; ("id:tls 1.2", 0.0).
Key = tuple[str, float]


@dataclass(frozen=True)
class Quantity:
    """A number, percentage, time of day or numbered name as it appears, with the values it
    may stand for; ``unit`` is the canonical unit of a measurement ("mm", "month", "%")."""

    surface: str
    keys: frozenset[Key]
    unit: str | None = None
    # Where the surface starts and ends in the text it was found in.
    start: int = -1
    end: int = -1


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


def _number_keys(values: set[float], unit: str | None) -> set[Key]:
    """A measurement matches only its own unit, or the same amount in another unit of its
    dimension ("12 months" is "1 year", "0.5 g" is "500 mg": one ``b:`` key on pint's base
    scale); a bare number matches every unit, as before."""
    kinds = [f"n:{unit}"] if unit else ["n", *(f"n:{name}" for name in _UNIT_NAMES)]
    keys = {(kind, value) for kind in kinds for value in values}
    scale = unit_scale(unit) if unit else None
    if scale is not None:
        dimension, factor = scale
        keys.update((f"b:{dimension}", base_amount(value * factor)) for value in values)
    return keys


def _unit_after(text: str, end: int) -> tuple[str | None, int]:
    """The canonical unit written right after ``text[:end]`` (or after a range's second
    number), and where the unit ends; ``(None, end)`` for a bare number."""
    match = _UNIT.match(text, end)
    if match and match.lastgroup:
        return _UNIT_ALIASES[int(match.lastgroup[1:])][0], match.end()
    second = _RANGE_NEXT.match(text, end)
    if second and (after := _UNIT.match(text, second.end())) and after.lastgroup:
        return _UNIT_ALIASES[int(after.lastgroup[1:])][0], end
    return None, end


def _and_a_half(text: str, value: float, end: int) -> tuple[float, int]:
    """ "an hour and a half": the value and end of the amount, with the half when it follows."""
    if half := _AND_A_HALF_AFTER.match(text, end):
        return value + 0.5, half.end()
    return value, end


def _whole_number(word: str) -> float:
    """ "21", "twenty-one", "seven", "one", "a": the whole number before "and a half"."""
    if word.isdigit():
        return float(word)
    if compound := _COMPOUND_NUMBER_WORD.fullmatch(word):
        return float(_NUMBER_WORDS[compound.group(1)] + _ONES.index(compound.group(2)) + 1)
    return float(_NUMBER_WORDS.get(word, 1))


def _identifier_key(prefix: str, number: str) -> Key:
    """One key per name and number; "v2.0" and "version 2" are the same release."""
    return (f"id:{prefix.lower()} {_TRAILING_ZEROS.sub('', number)}", 0.0)


def _one_in(count: str, total: str) -> tuple[int, int] | None:
    """ "1 in 1,000" as (1, 1000), or None when it is no share ("5 in 3")."""

    def value(word: str) -> int:
        word = word.lower().replace(",", "")
        return 1 if word in ("a", "one") else _NUMBER_WORDS.get(word) or int(word)

    part, whole = value(count), value(total)
    return (part, whole) if 0 < part < whole else None


def quantities(text: str) -> list[Quantity]:
    """Numbers, times, percentages and numbered names of ``text``, in order of appearance.

    Section and paragraph references, list ordinals, heading numbers and "out of 5" scale
    denominators are skipped: they say where a fact is, not what it is, and "Para 9-2" must
    not supply the "2" of a claim's "2 mm".
    """
    found: list[tuple[int, Quantity]] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    def add(start: int, end: int, keys: set[Key] | frozenset[Key], unit: str | None = None) -> None:
        start, end = trim(text, start, end)
        found.append((start, Quantity(text[start:end], frozenset(keys), unit, start, end)))
        taken.append((start, end))

    for pattern in (_REFERENCE, _ORDINAL, _HEADING_NUMBER):
        taken.extend(match.span() for match in pattern.finditer(text))
    for match in _ACRONYM_ID.finditer(text):
        if free(*match.span()):
            add(*match.span(), {_identifier_key(match.group(1), match.group(2))})
            # "TLS 1.0 and 1.1", "TLS 1.2/1.3": the listed versions are the same name's.
            position = match.end()
            while (more := _ID_CONTINUATION.match(text, position)) and free(*more.span(1)):
                add(*more.span(1), {_identifier_key(match.group(1), more.group(1))})
                position = more.end()
    for match in _ACRONYM_WORD_ID.finditer(text):
        if free(*match.span()):
            number = str(_NUMBER_WORDS[match.group(2).lower()])
            add(*match.span(), {_identifier_key(match.group(1), number)})
    for match in _VERSION_ID.finditer(text):
        if free(*match.span()):
            add(*match.span(), {_identifier_key("v", match.group(1))})
    for match in _AND_A_HALF.finditer(text):
        unit, end = _unit_after(text, match.end())
        if unit is not None and free(match.start(), end):
            whole = _whole_number(match.group(1).lower())
            add(match.start(), end, _number_keys({whole + 0.5}, unit), unit)
    for match in _HALF_AN.finditer(text):
        unit, end = _unit_after(text, match.end())
        if unit is not None and free(match.start(), end):
            add(match.start(), end, _number_keys({0.5}, unit), unit)
    for match in _ARTICLE_AMOUNT.finditer(text):
        unit, end = _unit_after(text, match.end(1))
        if unit is not None and unit_scale(unit) is not None and free(match.start(1), end):
            value, end = _and_a_half(text, 1.0, end)
            add(match.start(1), end, _number_keys({value}, unit), unit)
    for match in _FRACTION_OF_UNIT.finditer(text):
        unit, end = _unit_after(text, match.end())
        if unit is not None and free(match.start(), end):
            share = _FRACTION_WORDS[match.group(1).lower()] / 100
            add(match.start(), end, _number_keys({share}, unit), unit)
    for match in _ONE_IN.finditer(text):
        counts = _one_in(match.group(1), match.group(2))
        unit, _ = _unit_after(text, match.end())
        if counts is not None and unit is None and free(*match.span()):
            # Its numbers still match a claim's bare "2 of every 100", never a "2%".
            part, whole = counts
            keys = _number_keys({round(100 * part / whole, 6)}, "%")
            add(*match.span(), keys | {("n", float(part)), ("n", float(whole))}, "%")
    for match in _AMPM.finditer(text):
        hour, minute = int(match.group(1)), int(match.group(2) or 0)
        if free(*match.span()) and 1 <= hour <= 12 and minute < 60:
            add(*match.span(), _time_keys(hour, minute, match.group(3)))
    for match in _CLOCK.finditer(text):
        hour, minute = int(match.group(1)), int(match.group(2))
        if _OUT_OF.search(text, 0, match.start()):
            taken.append(match.span())
            continue
        if free(*match.span()) and hour <= 24 and minute < 60:
            add(*match.span(), _time_keys(hour, minute, None))
    for match in _NUMBER.finditer(text):
        if not free(*match.span()) or _OUT_OF.search(text, 0, match.start()):
            continue
        value = float(match.group(1).replace(",", "") + "." + (match.group(2) or "0"))
        multiplier = _MULTIPLIERS.get((match.group(3) or "").lower(), 1.0)
        start = match.start()
        unit, end = _unit_after(text, match.end())
        currency = _CURRENCY_BEFORE.search(text, max(0, start - 4), start)
        if currency:
            symbol = currency.group(3) or f"{currency.group(1) or ''}{currency.group(2)}"
            unit = _CURRENCY.get(symbol.lower(), currency.group(2) or "$")
            start = currency.start()
        keys = _number_keys({value, value * multiplier}, unit)
        if unit is None and value == int(value) and value <= 24:
            keys.update({("t", value * 60), ("t", (value + 12) * 60)})
        add(start, end, keys, unit)
    for match in _COMPOUND_NUMBER_WORD.finditer(text):
        if free(*match.span()) and not _OUT_OF.search(text, 0, match.start()):
            value = _NUMBER_WORDS[match.group(1).lower()] + _ONES.index(match.group(2).lower()) + 1
            unit, end = _unit_after(text, match.end())
            add(match.start(), end, _number_keys({float(value)}, unit), unit)
    for match in _NUMBER_WORD.finditer(text):
        if not free(*match.span()) or _OUT_OF.search(text, 0, match.start()):
            continue
        unit, end = _unit_after(text, match.end())
        add(
            match.start(),
            end,
            _number_keys({float(_NUMBER_WORDS[match.group(1).lower()])}, unit),
            unit,
        )
    for match in _ONE_BEFORE_UNIT.finditer(text):
        unit, end = _unit_after(text, match.end())
        if unit is not None and free(match.start(), end):
            value, end = _and_a_half(text, 1.0, end)
            add(match.start(), end, _number_keys({value}, unit), unit)
    return [quantity for _, quantity in sorted(found, key=lambda item: item[0])]


def shares(text: str) -> list[Quantity]:
    """Shares said in words ("half the cost", "a third of the staff") as percentages: what
    a claim's "50%" may restate. Never a claim's own figure (``quantities`` leaves them out)."""
    found = []
    for match in _FRACTION_SHARE.finditer(text):
        share = _FRACTION_WORDS[match.group(1).lower()]
        found.append(Quantity(match.group(), frozenset({("n:%", share)}), "%", *match.span()))
    return found


def quantity_keys(text: str) -> set[Key]:
    """Every value ``text`` states, a share in words as its percentage included: the keys a
    claim's figures are looked up in."""
    keys: set[Key] = set()
    for quantity in (*quantities(text), *shares(text)):
        keys.update(quantity.keys)
    return keys


def is_near(quantity: Quantity, keys: set[Key], tolerance: float = 0.05) -> bool:
    """True when an evidence value is within ``tolerance`` (relative): rounding, "about"."""
    values: dict[str, list[float]] = {}
    for kind, value in quantity.keys:
        values.setdefault(kind, []).append(value)
    return any(
        abs(value - other) <= tolerance * max(abs(other), 1e-9)
        for other_kind, other in keys
        for value in values.get(other_kind, ())
    )


def unit_conflicts(quantity: Quantity, evidence: list[Quantity]) -> list[Quantity]:
    """Evidence measurements in the claim quantity's unit with another value: "36 months"
    against "24 months" is a contradiction, not merely a number the evidence lacks."""
    if quantity.unit is None:
        return []
    return [q for q in evidence if q.unit == quantity.unit and not q.keys & quantity.keys]
