"""Specifics: found by the language tools, put on one scale, with what they are said about."""

from __future__ import annotations

import pytest

from audit_pipeline.specifics.extract import Kind, Specific, extract_specifics


def one(text: str, surface: str) -> Specific:
    found = [s for s in extract_specifics(text) if s.surface == surface]
    assert len(found) == 1, [s.surface for s in extract_specifics(text)]
    return found[0]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Keys are rotated quarterly.", "Keys are rotated every 3 months."),
        ("Keys are rotated annually.", "Keys are rotated every 12 months."),
        ("Reviews happen twice a year.", "Reviews happen every 6 months."),
        ("Report it within 60 minutes.", "Report it within 1 hour."),
    ],
)
def test_durations_and_frequencies_share_one_scale(first: str, second: str) -> None:
    a, b = (next(s for s in extract_specifics(t) if s.is_value) for t in (first, second))
    assert a.dimension == b.dimension == "[time]"
    assert a.low == pytest.approx(b.low, rel=0.02)


def test_a_year_is_not_ninety_days() -> None:
    year = extract_specifics("Logs are kept for 12 months.")[0]
    ninety = extract_specifics("Logs are kept for 90 days.")[0]
    assert abs(year.low - ninety.low) > 0.5 * ninety.low


def test_a_range_keeps_both_ends_in_the_second_ones_unit() -> None:
    found = one("We answer within 2-3 business days.", "2-3 business days")
    assert found.kind is Kind.MEASURE and found.low < found.high
    assert found.high == pytest.approx(3 * 86400)


def test_currencies_are_one_unit_whatever_they_are_written_as() -> None:
    a = one("The limit is A$190 a night.", "A$190")
    b = one("The limit is AUD 190 a night.", "AUD 190")
    assert a.dimension == b.dimension and a.low == b.low == 190


def test_names_identifiers_and_labels() -> None:
    found = {
        s.surface: s for s in extract_specifics("The report was issued by Deloitte for TH-AC-11.")
    }
    assert found["Deloitte"].kind is Kind.NAME
    assert found["TH-AC-11"].kind is Kind.IDENTIFIER
    label = one("The target for a Class 2 outage is 8 hours.", "2")
    assert label.kind is Kind.IDENTIFIER and label.key == "class 2"


def test_ages_rates_and_ordinals_are_not_specifics() -> None:
    surfaces = {
        s.surface
        for s in extract_specifics(
            "A 30-year-old man pays EUR 5 per day, open 7 days a week, in the 18th-century hall."
        )
    }
    assert not surfaces & {"30-year", "7 days", "18th-century", "per day"}


def test_context_says_what_a_value_is_about() -> None:
    """In "an RPO of 1 hour and an RTO of 4 hours" each value is about its own objective."""
    text = "The Ledger module has an RPO of 1 hour and an RTO of 4 hours."
    assert "rpo" in one(text, "1 hour").context and "rto" not in one(text, "1 hour").context
    assert "rto" in one(text, "4 hours").context and "rpo" not in one(text, "4 hours").context
    assert {"ledger", "modul"} <= one(text, "4 hours").context
