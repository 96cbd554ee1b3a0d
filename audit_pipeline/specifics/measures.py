"""Values on one scale: durations, frequencies and units through pint, dates through dateparser.

"12 months", "one year", "annually" and "every 12 months" state one period; "quarterly" is
every 3 months and "60 minutes" is "1 hour". Comparing a claim's value with its evidence's needs
them on one scale first. pint supplies the unit conversions (a month is a twelfth of a year);
the words that name a frequency ("quarterly", "twice a year") are a small table here, since no
library maps them.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from functools import lru_cache

from audit_pipeline.text import wordlists

# The canonical units of ``quantities`` (``specifics/quantities.py``) in pint's names.
_PINT_UNITS = {
    "ms": "millisecond", "second": "second", "minute": "minute", "hour": "hour", "day": "day",
    "week": "week", "month": "month", "year": "year", "mm": "millimeter", "cm": "centimeter",
    "km": "kilometer", "metre": "meter", "inch": "inch", "ft": "foot", "mile": "mile",
    "kg": "kilogram", "gram": "gram", "mg": "milligram", "tonne": "metric_ton", "lb": "pound",
    "oz": "ounce", "ml": "milliliter", "litre": "liter", "fortnight": "fortnight",
    "kb": "kilobyte", "mb": "megabyte", "gb": "gigabyte", "tb": "terabyte",
    "mbps": "megabit / second", "gbps": "gigabit / second",
}  # fmt: skip
TEMPERATURES = frozenset({"°c", "°f"})
TIME = "[time]"


def _period(text: str) -> tuple[float, str]:
    """ "3 month" -> (3.0, "month"): a count of a unit pint knows."""
    parts = text.split()
    if len(parts) != 2:
        raise ValueError("expected 'count unit'")
    return float(parts[0]), parts[1]


# The word lists are files in ``specifics/words/`` (read by ``text/wordlists.py``).
# Adverbs and adjectives that state how often: the period between two occurrences.
FREQUENCY_WORDS = wordlists.pairs("specifics", "frequency_words", _period)
# Nouns naming a period after "every", "each", "per" or "once a": "every quarter".
PERIOD_NOUNS = wordlists.pairs("specifics", "period_nouns", _period)
# Words that say how many times ("twice a year").
TIMES_WORDS = wordlists.pairs("specifics", "times_words", int)
# Relative tolerance of "the same value": 90 days is 3 months (1.4 % apart), 13 months is not a
# year (8 %). Not a stage parameter: the specifics analysis that compares values is shared by
# the specifics check, the entailment check and the alignment features (a value stated in
# other units is read in the evidence's words), so changing it changes the features the fitted
# model was trained on and needs a refit (``python -m benchmarks.train_verifier``).
TOLERANCE = 0.02


@lru_cache(maxsize=1)
def _registry() -> object:
    import pint

    return pint.UnitRegistry()


@lru_cache(maxsize=64)
def unit_scale(unit: str) -> tuple[str, float] | None:
    """(dimension, factor to base units) of a canonical unit, or None when it has no scale
    of its own (currencies and temperatures compare in their own unit)."""
    name = _PINT_UNITS.get(unit)
    if name is None:
        return None
    quantity = _registry().Quantity(1.0, name)  # type: ignore[attr-defined]
    base = quantity.to_base_units()
    return str(base.dimensionality), float(base.magnitude)


def base_amount(value: float) -> float:
    """An amount on pint's base scale, rounded to 9 significant figures so that the same
    amount reached from two units is one number (500 mg and 0.5 g are 0.0005 kg, not
    0.0005000000000000001) while two figures a writer tells apart stay apart (31,536,000 and
    31,536,005 seconds)."""
    return float(f"{value:.9g}")


def period(count: float, unit: str) -> float:
    """``count`` ``unit``s in seconds (pint's base unit of time)."""
    scale = unit_scale(unit)
    if scale is None:
        raise ValueError(f"not a unit of time: {unit}")
    return count * scale[1]


def same_value(low: float, high: float, other_low: float, other_high: float) -> bool:
    """Two values (or ranges) are the same within ``TOLERANCE``."""

    def close(a: float, b: float) -> bool:
        return abs(a - b) <= TOLERANCE * max(abs(a), abs(b), 1e-12)

    return close(low, other_low) and close(high, other_high)


@dataclass(frozen=True)
class CalendarDate:
    """The parts of a date that the text states (None where it leaves them open)."""

    year: int | None
    month: int | None
    day: int | None

    def agrees(self, other: CalendarDate) -> bool:
        """No stated part differs (a claim's "May 2026" agrees with "29 May 2026")."""
        pairs = ((self.year, other.year), (self.month, other.month), (self.day, other.day))
        return all(a is None or b is None or a == b for a, b in pairs)

    def shares_a_part(self, other: CalendarDate) -> bool:
        pairs = ((self.year, other.year), (self.month, other.month), (self.day, other.day))
        return any(a is not None and b is not None for a, b in pairs)

    def key(self) -> str:
        return "-".join(
            "?" if part is None else str(part) for part in (self.year, self.month, self.day)
        )


@lru_cache(maxsize=4096)
def calendar_date(text: str, has_year: bool, has_month: bool, has_day: bool) -> CalendarDate | None:
    """The date ``text`` names, keeping only the parts it states (dateparser fills the rest from
    today, which must not be compared)."""
    import dateparser

    parsed = dateparser.parse(
        text,
        languages=["en"],
        settings={"PREFER_DAY_OF_MONTH": "first", "RETURN_AS_TIMEZONE_AWARE": False},
    )
    if not isinstance(parsed, datetime.datetime):
        return None
    return CalendarDate(
        parsed.year if has_year else None,
        parsed.month if has_month else None,
        parsed.day if has_day else None,
    )
