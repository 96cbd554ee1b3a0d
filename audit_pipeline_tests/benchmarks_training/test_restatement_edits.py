"""The training edits of ``benchmarks.restatement_edits`` say what their labels claim.

A faithful restatement must state the same quantity (checked with pint, independently of the
edit's own arithmetic); a dropped condition must remove the condition and keep the rule; an
agent swap must keep every word and change who does what.
"""

from __future__ import annotations

import random
import re

import pint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.minimal_edits import make_edit
from benchmarks.restatement_edits import drop_condition, edit_agent, restate_unit

UREG: pint.UnitRegistry = pint.UnitRegistry()
UNITS = {
    "minutes": "minute",
    "hours": "hour",
    "days": "day",
    "weeks": "week",
    "kg": "kilogram",
    "grams": "gram",
    "tonnes": "tonne",
    "km": "kilometer",
    "metres": "meter",
    "cm": "centimeter",
    "mm": "millimeter",
    "litres": "liter",
    "ml": "milliliter",
    "seconds": "second",
    "mg": "milligram",
}
QUANTITY = re.compile(r"(\d[\d,]*(?:\.\d+)?) (" + "|".join(UNITS) + r")\b")


def _quantity(text: str) -> pint.Quantity:
    match = QUANTITY.search(text)
    assert match, text
    return float(match.group(1).replace(",", "")) * UREG(UNITS[match.group(2)])


@settings(max_examples=200, deadline=None)
@given(
    value=st.integers(min_value=1, max_value=5000),
    unit=st.sampled_from(sorted(UNITS)),
    seed=st.integers(min_value=0, max_value=1000),
)
def test_a_restated_quantity_is_the_same_quantity(value: int, unit: str, seed: int) -> None:
    sentence = f"The limit is {value:,} {unit} for every order."
    out = restate_unit(sentence, random.Random(seed))
    if out is None:
        return  # no plain value in another unit: nothing to restate
    assert out != sentence
    before, after = _quantity(sentence), _quantity(out)
    assert after.to(before.units).magnitude == pytest.approx(before.magnitude, rel=1e-9)
    assert out.startswith("The limit is ") and out.endswith(" for every order.")


@settings(max_examples=100, deadline=None)
@given(
    marker=st.sampled_from(["if", "unless", "provided that", "only if", "as long as"]),
    condition=st.sampled_from(["the manager approves", "the account is open", "rent is paid"]),
)
def test_a_dropped_condition_keeps_the_rule_alone(marker: str, condition: str) -> None:
    rule = "Staff may carry over five days of leave"
    out = drop_condition(f"{rule} {marker} {condition}.", random.Random(0))
    assert out == f"{rule}."
    edit = make_edit("condition_dropped", f"{rule} {marker} {condition}.", random.Random(0))
    assert edit is not None and (edit.entailed, edit.contradicted) == (0, 0)


def test_a_sentence_without_a_condition_offers_none() -> None:
    assert drop_condition("Staff may carry over five days of leave.", random.Random(0)) is None


@pytest.mark.parametrize("seed", range(5))
def test_agent_swap_changes_who_acts_and_keeps_the_words(seed: int) -> None:
    sentence = "The landlord pays the deposit back to the tenant within 10 days."
    out = edit_agent(sentence, random.Random(seed))
    assert out == "The tenant pays the deposit back to the landlord within 10 days."
    assert sorted(out.lower().split()) == sorted(sentence.lower().split())


def test_clause_cut_before_a_condition_is_not_a_faithful_rewrite() -> None:
    sentence = "Tenants may keep a small pet in the flat, provided the landlord agrees in writing."
    assert make_edit("clause", sentence, random.Random(0)) is None
