"""The specifics of a text: what an auditor would check, with its value and what it is about.

A specific is a number with its unit, a duration or frequency, a range, a date, an amount of
money or a percentage, a named organisation, person, place or product, or an identifier. Each
is found with the tools that know the language (spaCy's entities and dependency parse, the
quantity rules of ``quantities.py``), put on one scale (``measures.py``) and given a
*context*: the content words of what the text says it about ("the RPO of the Ledger module"
for "1 hour" in "the Ledger module has an RPO of 1 hour and an RTO of 4 hours"), so a verifier
can compare a claim's value with the evidence's value *for the same thing*.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from audit_pipeline.specifics.identifiers import identifier_tokens
from audit_pipeline.specifics.language import parse_many
from audit_pipeline.specifics.measures import (
    FREQUENCY_WORDS,
    PERIOD_NOUNS,
    TEMPERATURES,
    TIME,
    TIMES_WORDS,
    CalendarDate,
    calendar_date,
    period,
    unit_scale,
)
from audit_pipeline.specifics.quantities import CURRENCY_UNITS, Quantity, quantities
from audit_pipeline.text import wordlists
from audit_pipeline.text.tokens import STOPWORDS, content_stems, stem

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token


class Kind(StrEnum):
    MEASURE = "measure"  # a number with a unit, durations included
    FREQUENCY = "frequency"  # how often: "quarterly", "every 12 months"
    DATE = "date"
    MONEY = "money"
    PERCENT = "percent"
    COUNT = "count"  # a number of things: "112 controls"
    NAME = "name"  # an organisation, person, place, product
    IDENTIFIER = "identifier"  # "TH-AC-11", "ISO 27001", "TLS 1.2"


# Entity labels that name something an answer can get wrong. Nationalities (NORP), laws and
# languages are left out: they are paraphrased too freely ("Chinese" for "China").
NAME_LABELS = frozenset({"ORG", "PERSON", "GPE", "LOC", "FAC", "PRODUCT", "EVENT", "WORK_OF_ART"})
# The word lists are files in ``specifics/words/`` (read by ``text/wordlists.py``).
# Words of a name that do not tell one name from another ("Harrow & Vale LLP" is "Harrow & Vale").
GENERIC_NAME_WORDS = wordlists.words("specifics", "generic_name_words")
# Month names and their abbreviations.
_MONTHS = wordlists.words("specifics", "months")
_YEAR = re.compile(r"(?:1[89]|2[01])\d\d")
_ALNUM = re.compile(r"[a-z0-9]+")
_ISO_DATE = re.compile(r"(?:1[89]|2[01])\d\d-[01]\d-[0-3]\d")
# Day names and their abbreviations are tagged as names ("Sat. & Sun."); they are times.
_NOT_NAMES = wordlists.words("specifics", "not_names")
# Words between two numbers or dates that make them one range ("2-3 days", "2 to 3 days",
# "1 April 2025 through 31 March 2026").
_RANGE_WORDS = wordlists.words("specifics", "range_words")
# "every quarter", "each year"; "per day" is a rate ("EUR 5 per day"), not how often.
_EVERY = wordlists.words("specifics", "every")
# Dependencies whose subtree says what a word on the path to the clause head is about.
_ABOUT = frozenset(
    {
        "nsubj", "nsubjpass", "compound", "amod", "poss", "nmod", "dobj", "attr", "agent",
        "prep", "pobj", "acomp", "oprd", "appos", "npadvmod", "advmod", "dative",
    }
)  # fmt: skip
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl"})
# Nouns a number labels rather than counts when it follows them ("Class 2", "Zone 3").
_LABEL_NOUNS = wordlists.words("specifics", "label_nouns")
_RESULTS_SIZE = 50_000
_results: OrderedDict[str, tuple[Specific, ...]] = OrderedDict()
_results_lock = threading.Lock()


@dataclass(frozen=True)
class Specific:
    """One specific of a text.

    ``dimension`` says what it can be compared with ("[time]" for durations and frequencies
    alike, "currency:$", "count:control", "name", "id:th-ac", "date"); ``low`` and ``high``
    are its value on that dimension's scale (equal unless it is a range); ``key`` is the
    normalised text of a name or identifier, or a date's stated parts; ``context`` the content
    stems of what the text says it about.
    """

    kind: Kind
    surface: str
    start: int
    end: int
    dimension: str
    low: float = 0.0
    high: float = 0.0
    key: str = ""
    label: str = ""
    date: CalendarDate | None = None
    unit: str = ""  # the unit it was written in ("month"), when it is a measure
    context: frozenset[str] = field(default=frozenset(), compare=False)

    @property
    def is_value(self) -> bool:
        """A value on a scale (compared by number), not a name or identifier (compared by text)."""
        return self.kind not in (Kind.NAME, Kind.IDENTIFIER, Kind.DATE)

    @property
    def is_bare_year(self) -> bool:
        """A year alone ("2026 research leave"): it names which one, like a name does."""
        return self.date is not None and self.date.month is None

    def name_words(self) -> tuple[str, ...]:
        """The words that tell this name from others (generic company words left out)."""
        return tuple(w for w in self.key.split() if w not in GENERIC_NAME_WORDS)


def extract_specifics(text: str) -> list[Specific]:
    """The specifics of ``text`` in order of appearance."""
    return extract_many([text])[0]


def extract_many(texts: Sequence[str]) -> list[list[Specific]]:
    """Specifics of several texts, the new ones parsed in one batch; results are kept (an
    audit checks many claims against the same evidence sentences)."""
    with _results_lock:
        missing = list(dict.fromkeys(t for t in texts if t not in _results))
    if missing:
        extracted = [_extract(t, d) for t, d in zip(missing, parse_many(missing), strict=True)]
        with _results_lock:
            _results.update(zip(missing, map(tuple, extracted), strict=True))
            while len(_results) > _RESULTS_SIZE:
                _results.popitem(last=False)
            kept = dict(zip(missing, extracted, strict=True))
    else:
        kept = {}
    with _results_lock:
        return [list(kept[t]) if t in kept else list(_results[t]) for t in texts]


def _extract(text: str, doc: Doc) -> list[Specific]:
    found: list[Specific] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    def add(specific: Specific) -> None:
        found.append(specific)
        taken.append((specific.start, specific.end))

    calendar = [_with_day(ent) for ent in doc.ents if ent.label_ == "DATE" and _is_calendar(ent)]
    for ent in calendar:
        dated = _dated_parts(ent)
        for part, date in dated:
            add(
                Specific(
                    Kind.DATE,
                    part.text,
                    part.start_char,
                    part.end_char,
                    "date",
                    key=date.key(),
                    date=date,
                )
            )
        if not dated:  # a date it cannot read ("6 to 12 April 2015"): its numbers are no amounts
            taken.append((ent.start_char, ent.end_char))
    for specific in _frequency_words(doc):
        if free(specific.start, specific.end):
            add(specific)
    for specific in _from_quantities(text, doc):
        if free(specific.start, specific.end):
            add(specific)
    for token in identifier_tokens(text):
        for match in re.finditer(re.escape(token), text):
            if free(*match.span()):
                add(
                    Specific(
                        Kind.IDENTIFIER,
                        token,
                        *match.span(),
                        _id_dimension(token),
                        key=token.lower(),
                    )
                )
    for span, label in _names(doc):
        if free(span.start_char, span.end_char):
            key = _name_key(span)
            if key and any(w not in GENERIC_NAME_WORDS for w in key.split()):
                name = Specific(
                    Kind.NAME,
                    span.text,
                    span.start_char,
                    span.end_char,
                    "name",
                    key=key,
                    label=label,
                )
                add(name)
    # Another value describes another fact; a name is what a fact is about, so it stays.
    values = [
        (s.start, s.end)
        for s in found
        if s.kind not in (Kind.NAME, Kind.IDENTIFIER) and not s.is_bare_year
    ]
    out = [
        _with_context(specific, doc, [v for v in values if v != (specific.start, specific.end)])
        for specific in found
    ]
    return sorted(out, key=lambda s: s.start)


def _id_dimension(token: str) -> str:
    from audit_pipeline.specifics.identifiers import identifier_family

    return f"id:{identifier_family(token)}"


def _is_calendar(ent: Span) -> bool:
    """A DATE entity that names a day, month or year ("29 May 2026"), not a duration ("13
    months") or a frequency ("quarterly")."""
    words = [t.lower_.rstrip(".") for t in ent]
    if any(w in _MONTHS or _ISO_DATE.fullmatch(w) for w in words):
        return True
    return any(_YEAR.fullmatch(w) for w in words) and not any(
        stem(w) in PERIOD_NOUNS or w in FREQUENCY_WORDS for w in words
    )


def _with_day(ent: Span) -> Span:
    """The entity with the day number the tagger left before its month ("29" of "Detail: 29
    May 2026")."""
    before = ent.doc[ent.start - 1] if ent.start > 0 else None
    if (
        before is not None
        and before.text.isdigit()
        and 1 <= int(before.text) <= 31
        and ent[0].lower_.rstrip(".") in _MONTHS
    ):
        return ent.doc[ent.start - 1 : ent.end]
    return ent


def _dated_parts(ent: Span) -> list[tuple[Span, CalendarDate]]:
    """The dates of a DATE entity: itself, or each end of a range the parser tagged whole
    ("1 April 2025 to 31 March 2026"), when every end is a date of its own."""
    date = _date_of(ent)
    if date is not None:
        return [(ent, date)]
    cuts = [t.i for t in ent if t.lower_ in _RANGE_WORDS]
    if not cuts:
        return []
    bounds = [ent.start, *(i for c in cuts for i in (c, c + 1)), ent.end]
    parts = [ent.doc[a:b] for a, b in zip(bounds[::2], bounds[1::2], strict=True) if b > a]
    dated = [(part, _date_of(part)) for part in parts]
    if len(dated) < 2 or any(d is None or d.month is None for _, d in dated):
        return []
    return [(part, d) for part, d in dated if d is not None]


def _date_of(ent: Span) -> CalendarDate | None:
    words = [t.lower_.rstrip(".") for t in ent]
    if any(_ISO_DATE.fullmatch(w) for w in words):  # "2024-11-28"
        return calendar_date(ent.text, True, True, True)
    has_year = any(_YEAR.fullmatch(w) for w in words)
    has_month = any(w in _MONTHS for w in words)
    has_day = has_month and any(
        t.like_num and t.text.isdigit() and 1 <= int(t.text) <= 31 for t in ent
    )
    text = " ".join(t.text for t in ent if t.lower_ not in ("the", "on", "in", "since", "of"))
    return calendar_date(text, has_year, has_month, has_day)


def _names(doc: Doc) -> list[tuple[Span, str]]:
    """Named entities that name something: a one-word "entity" the tagger reads as an
    adjective, a verb or a plural noun ("Lone work", "Keys are") is a misread word, and one
    without a capital letter
    ("premises", "al fresco") or with markup in it is no name."""
    names: list[tuple[Span, str]] = []
    for ent in doc.ents:
        if ent.label_ not in NAME_LABELS:
            continue
        if len(ent) == 1 and (
            ent[0].pos_ in ("ADJ", "VERB", "ADV", "ADP", "DET") or ent[0].tag_ == "NNS"
        ):
            continue  # "Lone work", "Keys are rotated": a word, not a name
        if not any(ch.isupper() for ch in ent.text) or any(ch in ent.text for ch in "&;<>"):
            continue
        if _defines_acronym(doc, ent):
            continue  # "(NASM)" after the name it abbreviates: the name is what is checked
        names.append((ent, ent.label_))
    covered = {i for ent, _ in names for i in range(ent.start, ent.end)}
    covered.update(i for ent in doc.ents for i in range(ent.start, ent.end))
    # "Marshall & Tate Safety", "Roelofs Trucking": a run of capitalised proper nouns the
    # entity recogniser missed (two words at least; one capitalised word is too often none).
    run: list[int] = []
    for token in [*doc, None]:
        joins = token is not None and token.text == "&" and bool(run)
        if (
            token is not None
            and (joins or (token.pos_ == "PROPN" and token.is_title))
            and (token.i not in covered)
        ):
            run.append(token.i)
            continue
        while run and doc[run[-1]].text == "&":
            run.pop()
        if len(run) >= 2:
            names.append((doc[run[0] : run[-1] + 1], "PROPN"))
        run = []
    return names


def _defines_acronym(doc: Doc, ent: Span) -> bool:
    """An all-capitals name in parentheses right after other words: an acronym the text
    defines for the words before it."""
    return (
        ent.text.isupper()
        and ent.start > 1
        and doc[ent.start - 1].text == "("
        and ent.end < len(doc)
        and doc[ent.end].text == ")"
    )


def _name_key(ent: Span) -> str:
    """The name's words, lowercased, accents folded, split at hyphens and slashes
    ("Seattle-Tacoma" is "seattle tacoma"), without "the" and "of"."""
    words = name_words(ent.text)
    return " ".join(w for w in words if w not in STOPWORDS and w not in _NOT_NAMES)


def name_words(text: str) -> list[str]:
    """Lowercased alphanumeric runs of ``text`` with accents folded: how names compare."""
    folded = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return _ALNUM.findall(plain.lower())


def _frequency_words(doc: Doc) -> Iterable[Specific]:
    """ "quarterly", "every quarter", "twice a year", "once a month"."""
    for token in doc:
        lowered = token.lower_
        if lowered in FREQUENCY_WORDS and token.ent_type_ not in NAME_LABELS:
            first = token.i
            # "semi-annually", "bi-weekly": the tokenizer splits the prefix off.
            if (
                first >= 2
                and doc[first - 1].text == "-"
                and doc[first - 2].lower_ in ("semi", "bi")
            ):
                first -= 2
                lowered = doc[first].lower_ + lowered
            count, unit = FREQUENCY_WORDS.get(lowered, FREQUENCY_WORDS[token.lower_])
            yield _frequency(doc, first, token.i + 1, period(count, unit))
            continue
        nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if nxt is None:
            continue
        if lowered in _EVERY:
            other = nxt.lower_ == "other" and token.i + 2 < len(doc)
            noun = doc[token.i + 2] if other else nxt
            named = PERIOD_NOUNS.get(noun.lemma_.lower())
            if named is not None:
                count = named[0] * (2 if other else 1)
                yield _frequency(doc, token.i, noun.i + 1, period(count, named[1]))
        elif (lowered in TIMES_WORDS or (token.like_num and nxt.lower_ == "times")) and (
            token.i + 2 < len(doc)
        ):
            times = TIMES_WORDS.get(lowered) or _number(token.text)
            after = token.i + (2 if nxt.lower_ == "times" else 1)
            if after + 1 < len(doc) and doc[after].lower_ in ("a", "an", "per", "every", "each"):
                named = PERIOD_NOUNS.get(doc[after + 1].lemma_.lower())
                if named is not None and times:
                    seconds = period(named[0], named[1]) / times
                    yield _frequency(doc, token.i, after + 2, seconds)


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _frequency(doc: Doc, first: int, last: int, seconds: float) -> Specific:
    span = doc[first:last]
    return Specific(
        Kind.FREQUENCY, span.text, span.start_char, span.end_char, TIME, seconds, seconds
    )


def _from_quantities(text: str, doc: Doc) -> Iterable[Specific]:
    """Measures, money, percentages and counts from the quantity rules, ranges joined."""
    found = [q for q in quantities(text) if q.start >= 0]
    index = 0
    while index < len(found):
        quantity = found[index]
        end_quantity = quantity
        # "2-3 business days", "2 to 3 days": the first number takes the second's unit.
        if index + 1 < len(found):
            following = found[index + 1]
            between = text[quantity.end : following.start].strip().lower()
            joined = between in _RANGE_WORDS or (
                between == "and" and text[: quantity.start].rstrip().lower().endswith("between")
            )
            if joined and following.unit == quantity.unit and _value(quantity) is not None:
                end_quantity = following
                index += 1
        index += 1
        specific = _specific_of(text, doc, quantity, end_quantity)
        if specific is not None:
            yield specific


def _value(quantity: Quantity) -> float | None:
    if any(kind.startswith("id:") for kind, _ in quantity.keys):
        return None
    unit_kind = f"n:{quantity.unit}" if quantity.unit else "n"
    values = sorted(v for kind, v in quantity.keys if kind == unit_kind)
    return values[-1] if values else None  # "5 million": the multiplied value


def _in_fraction(text: str, start: int, end: int) -> bool:
    """ "7 3/4 inches": the numbers of a written fraction are no value of their own."""
    return text[max(0, start - 1) : start] == "/" or text[end : end + 1] == "/"


def _specific_of(text: str, doc: Doc, first: Quantity, last: Quantity) -> Specific | None:
    if _in_fraction(text, first.start, first.end) or _in_fraction(text, last.start, last.end):
        return None
    named = sorted(kind for kind, _ in first.keys if kind.startswith("id:"))
    if named and first is not last:
        return None
    if named:  # "TLS 1.2", "ISO 27001", "SOC 2": a numbered name
        family = named[0].rsplit(" ", 1)[0]
        return Specific(
            Kind.IDENTIFIER, first.surface, first.start, first.end, family, key=named[0]
        )
    low, high = _value(first), _value(last)
    if low is None or high is None:
        return None
    start, end = first.start, last.end
    surface = text[start:end]
    unit = first.unit
    if unit is None:
        label = _labelled_noun(doc, start, end)
        if label is not None:  # "Class 2", "Zone 3": a label, compared as a name
            key = f"{label} {surface}".lower()
            return Specific(Kind.IDENTIFIER, surface, start, end, f"id:{label}", key=key)
        noun = _counted_noun(doc, start, end)
        if noun is None:
            return None
        return Specific(Kind.COUNT, surface, start, end, f"count:{noun}", low, high)
    if unit in CURRENCY_UNITS:
        return Specific(Kind.MONEY, surface, start, end, f"currency:{unit}", low, high)
    if unit == "%":
        return Specific(Kind.PERCENT, surface, start, end, "percent", low, high)
    if unit in TEMPERATURES:
        return Specific(Kind.MEASURE, surface, start, end, f"temperature:{unit}", low, high)
    scale = unit_scale(unit)
    if scale is None:
        return None
    dimension, factor = scale
    span = doc.char_span(start, end, alignment_mode="expand")
    kind = Kind.MEASURE
    if span is not None and span.start > 0 and doc[span.start - 1].lower_ in _EVERY:
        kind = Kind.FREQUENCY
        start = doc[span.start - 1].idx
        surface = text[start:end]
    elif span is not None and _rate_follows(doc, span.end):
        return None  # "7 days a week", "24 hours a day": how often, said as a rate
    elif text[end : end + 4].lower() == "-old":
        return None  # "a 30-year-old": an age, which a source states as "aged 30" or "30,"
    return Specific(kind, surface, start, end, dimension, low * factor, high * factor, unit=unit)


def _rate_follows(doc: Doc, index: int) -> bool:
    """ "a week", "per day", "each month" right after a measure: the measure is a rate."""
    if index + 1 >= len(doc):
        return False
    return (
        doc[index].lower_ in ("a", "an", "per", "each", "every")
        and doc[index + 1].lemma_.lower() in PERIOD_NOUNS
    )


def _labelled_noun(doc: Doc, start: int, end: int) -> str | None:
    """ "class" for the "2" of "Class 2": a number right after the capitalised noun it
    numbers is a label, not an amount."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None or span.start == 0:
        return None
    before = doc[span.start - 1]
    if before.is_title and before.lower_ in _LABEL_NOUNS and span.root.head.i == before.i:
        return before.lower_
    return None


def _counted_noun(doc: Doc, start: int, end: int) -> str | None:
    """The noun a bare number counts ("112 controls" -> "control"), or None."""
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return None
    root = span.root
    if root.dep_ == "nummod" and root.head.pos_ in ("NOUN", "PROPN"):
        return root.head.lemma_.lower()
    return None


# Words that frame an answer rather than say what a value is about ("The answer is: ...").
_DISCOURSE_WORDS = frozenset(stem(w) for w in wordlists.words("specifics", "discourse_words"))


def _with_context(specific: Specific, doc: Doc, others: Sequence[tuple[int, int]]) -> Specific:
    context = context_stems(doc, specific.start, specific.end, others)
    if specific.kind is Kind.COUNT:  # the counted noun is the count's unit, not its subject
        context -= {stem(specific.dimension.removeprefix("count:"))}
    if context <= _DISCOURSE_WORDS:
        # "The answer is: 35 days" says nothing of what the days are about; matching "answer"
        # to "questions are answered within 5 business days" would invent a rival.
        context = frozenset()
    return replace(specific, context=context)


def context_stems(
    doc: Doc, start: int, end: int, others: Sequence[tuple[int, int]] = ()
) -> frozenset[str]:
    """Content stems of what the text says the words at ``start:end`` are about.

    Climbs the dependency tree from the words to the clause head, keeping each word on the way
    and the subtrees hanging off it that describe it (subject, object, modifiers,
    prepositional phrases), but not a subtree holding another specific (it describes another
    fact). A list sibling ("an RPO of 1 hour and an RTO of 4 hours": RTO is a conjunct of RPO)
    does not inherit its sibling's own words, only what governs both.
    """
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return frozenset()
    own = {t.i for t in span}
    blocked: set[int] = set()
    for other_start, other_end in others:
        other = doc.char_span(other_start, other_end, alignment_mode="expand")
        if other is not None:
            blocked.update(t.i for t in other if t.i not in own)
    words: list[Token] = []
    path: list[tuple[Token, bool]] = []  # (word on the path, reached as a list sibling's head)
    token = span.root
    while token.head.i != token.i:
        sibling = token.dep_ == "conj"
        if sibling and token.pos_ in ("VERB", "AUX") and _has_subject(token):
            break  # a clause of its own: what governs the first clause is not about it
        path.append((token.head, sibling))
        token = token.head
    on_path = own | {node.i for node, _ in path}
    for node, sibling in path:
        if sibling:
            # A coordinated verb without a subject of its own ("... is added to the base rate
            # and is reviewed monthly") shares its sibling's subject, and only that.
            if node.pos_ in ("VERB", "AUX"):
                for child in node.children:
                    if child.dep_ in _SUBJECTS and not any(t.i in blocked for t in child.subtree):
                        words.extend(child.subtree)
            continue
        words.append(node)
        for child in node.children:
            if child.i in on_path or child.dep_ not in _ABOUT:
                continue
            subtree = list(child.subtree)
            if any(t.i in blocked for t in subtree):
                continue
            words.extend(subtree)
    # The specific's own modifiers ("the 30-day export window": window describes 30 days;
    # "16 weeks of paid partner leave": what the weeks are of).
    for token in span:
        for child in token.children:
            if child.i not in own and child.dep_ in ("compound", "amod", "nmod", "prep"):
                words.extend(child.subtree)  # another specific's own words are left out below
    text = " ".join(t.text for t in words if t.i not in own and t.i not in blocked)
    return frozenset(s for s in content_stems(text) if s not in STOPWORDS)


def _has_subject(token: Token) -> bool:
    return any(child.dep_ in _SUBJECTS for child in token.children)
