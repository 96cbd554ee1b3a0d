"""No false alarm on a faithful restatement, by construction (issue 31, item 4): an amount in
another unit of its dimension, in number words, with "and a half" or as a share in words is the
evidence's amount; the same number in a unit that is not equivalent is another amount.

Properties over generated amounts (``hypothesis``), checked on three levels: the quantity keys
every check matches on, the rewrite analysis, and the chain of checks itself (no model: a
restatement must reach the learned reading unflagged).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.records.claims import Claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import Label, Verdict
from audit_pipeline.specifics.measures import unit_scale
from audit_pipeline.specifics.quantities import quantities, quantity_keys
from audit_pipeline.text import wordlists
from audit_pipeline.verification.configured import build_verifier
from audit_pipeline.verification.detection_settings import DEFAULT_CHECKS, DetectionSettings
from audit_pipeline.verification.rewrites import rewrite_edits
from audit_pipeline.verification.verdict import Verifier, verify_answer

# Units of one dimension as a writer spells them, smallest first; each is a whole number of the
# one before it, so a restatement in the smaller unit is exact.
FAMILIES = {
    "mass": (("mg", "milligrams"), ("g", "grams"), ("kg", "kilograms"), ("tonnes",)),
    "volume": (("ml", "millilitres"), ("litres", "liters")),
    "length": (("mm", "millimetres"), ("cm", "centimetres"), ("metres", "meters"), ("km",)),
    "time": (
        ("seconds",),
        ("minutes", "mins"),
        ("hours",),
        ("days",),
        ("weeks",),
        ("fortnights",),
    ),
    "data": (("KB", "kilobytes"), ("MB", "megabytes"), ("GB", "gigabytes"), ("TB",)),
}
# The same number in these units states another amount: kg and lb, g and oz, km and miles.
NOT_EQUIVALENT = (("kg", "lb"), ("grams", "oz"), ("km", "miles"), ("tonnes", "lb"))


def _unit(surface: str) -> str:
    """The canonical unit ``quantities`` reads from "1 <surface>"."""
    (found,) = quantities(f"1 {surface}")
    assert found.unit is not None
    return found.unit


def _ratio(small: str, big: str) -> Fraction:
    small_scale, big_scale = unit_scale(_unit(small)), unit_scale(_unit(big))
    assert small_scale and big_scale and small_scale[0] == big_scale[0]
    return Fraction(big_scale[1] / small_scale[1]).limit_denominator(1000)


def _written(value: int, separators: bool) -> str:
    return f"{value:,}" if separators else str(value)


@st.composite
def restatements(draw: st.DrawFn) -> tuple[str, str]:
    """("N <big unit>", "M <small unit>") stating one amount."""
    family = draw(st.sampled_from(sorted(FAMILIES)))
    units = FAMILIES[family]
    small_index = draw(st.integers(0, len(units) - 2))
    big_index = draw(st.integers(small_index + 1, len(units) - 1))
    small = draw(st.sampled_from(units[small_index]))
    big = draw(st.sampled_from(units[big_index]))
    count = draw(st.integers(1, 999))
    ratio = _ratio(small, big)
    assert ratio.denominator == 1, (small, big, ratio)
    separators = draw(st.booleans())
    return f"{count} {big}", f"{_written(count * ratio.numerator, separators)} {small}"


def _amount_keys(text: str) -> set[tuple[str, float]]:
    return {key for q in quantities(text) for key in q.keys if key[0].startswith("b:")}


@given(restatements())
def test_an_amount_in_another_unit_of_its_dimension_has_the_same_key(pair: tuple[str, str]) -> None:
    said, restated = pair
    assert _amount_keys(said) & _amount_keys(restated)


@given(st.sampled_from(NOT_EQUIVALENT), st.integers(1, 999))
def test_the_same_number_in_a_unit_that_is_not_equivalent_is_another_amount(
    units: tuple[str, str], count: int
) -> None:
    assert not _amount_keys(f"{count} {units[0]}") & _amount_keys(f"{count} {units[1]}")


_ONES = wordlists.sequence("specifics", "ones")
_TENS = wordlists.sequence("specifics", "tens")
_TEENS = {value: word for word, value in wordlists.pairs("specifics", "number_words", int).items()}


def _in_words(number: int) -> str:
    if number < 10:
        return _ONES[number - 1]
    if number in _TEENS:
        return _TEENS[number]
    tens, ones = divmod(number, 10)
    return f"{_TENS[tens - 2]}-{_ONES[ones - 1]}"


@given(
    st.integers(1, 99),
    st.sampled_from(["days", "hours", "weeks", "kg", "minutes"]),
    st.booleans(),
)
def test_a_number_in_words_is_the_number(number: int, unit: str, half: bool) -> None:
    words, digits = _in_words(number), str(number)
    if half:
        words, digits = f"{words} and a half", f"{number}.5"
    assert _amount_keys(f"{words} {unit}") == _amount_keys(f"{digits} {unit}")


@given(st.sampled_from(["hour", "day", "week", "year", "month", "minute"]))
def test_an_article_after_a_span_word_is_one_unit_and_a_rate_is_none(unit: str) -> None:
    article = "an" if unit == "hour" else "a"
    assert _amount_keys(f"kept for {article} {unit}") == _amount_keys(f"kept for 1 {unit}")
    assert _amount_keys(f"within {article} {unit} and a half") == _amount_keys(
        f"within 1.5 {unit}s"
    )
    assert not _amount_keys(f"£25 {article} {unit}") - _amount_keys("£25")
    assert not quantities(f"once {article} {unit}")


@given(
    st.sampled_from([("half", 50), ("a quarter", 25), ("three quarters", 75), ("a fifth", 20)]),
    st.sampled_from(["of the cost", "the fee"]),
)
def test_a_share_in_words_is_its_percentage(share: tuple[str, int], rest: str) -> None:
    words, percent = share
    text = f"pay {words} {rest}"
    assert ("n:%", float(percent)) in quantity_keys(text)
    # A share is what a "50%" may restate, never a figure of its own the evidence must state.
    assert not any(q.unit == "%" for q in quantities(text))


@given(
    st.sampled_from([("three quarters", 45), ("a third", 20), ("half", 30), ("a quarter", 15)]),
)
def test_a_share_of_a_unit_is_an_amount(share: tuple[str, int]) -> None:
    words, minutes = share
    assert _amount_keys(f"a detention of {words} of an hour") == _amount_keys(
        f"a detention of {minutes} minutes"
    )


# ------------------------------------------------------------------ the rewrite analysis


# Long enough that the claim is a close rewrite of the sentence (``rewrite_edits`` judges
# only those): one replaced stretch in a dozen words.
OPENINGS = [
    "Under the standard terms of this agreement the limit is",
    "Temperature, delivery and cleaning records are always kept for",
    "According to the current policy each approved request holds",
]


@given(st.integers(10_000, 99_999_999), st.integers(1, 9), st.sampled_from(OPENINGS))
def test_a_figure_changed_in_its_last_digits_is_an_edit(
    figure: int, change: int, opening: str
) -> None:
    sentence = f"{opening} {figure} seconds in every case."
    claim = f"{opening} {figure + change} seconds in every case."
    words = frozenset(w.lower() for w in sentence.replace(".", " ").split())
    assert [edit.kind for edit in rewrite_edits(claim, sentence, words) or ()] == ["number"]


@given(restatements(), st.sampled_from(OPENINGS))
def test_a_restated_amount_is_no_edit_of_a_close_rewrite(
    pair: tuple[str, str], opening: str
) -> None:
    said, restated = pair
    sentence, claim = f"{opening} {said} in every case.", f"{opening} {restated} in every case."
    words = frozenset(w.lower() for w in sentence.replace(".", " ").split())
    assert rewrite_edits(claim, sentence, words) == ()


# ------------------------------------------------------------------ the chain of checks

CHECKS = list(DEFAULT_CHECKS)
SUBJECTS = ["Each delivery", "The standard parcel", "A single booking", "The trial"]


@pytest.fixture(scope="module")
def checks(embedder: SentenceTransformerEmbedder) -> Verifier:
    return build_verifier(DetectionSettings(stages=CHECKS), embedder)


def _verdict(verifier: Verifier, claim: str, evidence: str) -> Verdict:
    passage = EvidencePassage("c1", evidence, "terms.md", "Terms", 0.9, 10.0, 1.0, "vault")
    answer = verify_answer(verifier, [Claim("c1", claim, 0, len(claim), "sentence")], [[passage]])
    return answer.verdicts[0]


@settings(max_examples=25)
@given(restatements(), st.sampled_from(SUBJECTS))
def test_no_check_flags_an_amount_restated_in_another_unit(
    checks: Verifier, pair: tuple[str, str], subject: str
) -> None:
    said, restated = pair
    verdict = _verdict(
        checks, f"{subject} is limited to {restated}.", f"{subject} is limited to {said}."
    )
    assert verdict.label not in (Label.CONTRADICTED, Label.UNSUPPORTED), verdict.justification


@settings(max_examples=15)
@given(st.sampled_from(NOT_EQUIVALENT), st.integers(2, 999), st.sampled_from(SUBJECTS))
def test_the_specifics_check_contradicts_a_number_moved_to_another_unit(
    checks: Verifier, units: tuple[str, str], count: int, subject: str
) -> None:
    verdict = _verdict(
        checks,
        f"{subject} is limited to {count} {units[1]}.",
        f"{subject} is limited to {count} {units[0]}.",
    )
    assert (verdict.label, verdict.decided_by) == (Label.CONTRADICTED, "specifics")


# ------------------------------------------------------------------ "1 in N" as a percentage

# Denominators whose share of a small count is a short decimal, as a writer would restate it.
WHOLES = [4, 5, 8, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000]
COUNT_WORDS = {1: "one", 2: "two", 3: "three"}


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:g}"


def _count(number: int, words: bool) -> str:
    return COUNT_WORDS[number] if words and number in COUNT_WORDS else f"{number:,}"


@given(st.integers(1, 3), st.sampled_from(WHOLES), st.booleans())
def test_one_in_n_is_its_percentage(part: int, whole: int, words: bool) -> None:
    text = f"may affect up to {_count(part, words)} in {whole:,} people"
    (found,) = quantities(text)
    assert found.unit == "%"
    assert ("n:%", float(_percent(part, whole))) in found.keys


@settings(max_examples=25)
@given(st.integers(1, 3), st.sampled_from(WHOLES), st.booleans(), st.sampled_from(SUBJECTS))
def test_no_check_flags_one_in_n_restated_as_a_percentage(
    checks: Verifier, part: int, whole: int, words: bool, subject: str
) -> None:
    evidence = f"{subject} fails for {_count(part, words)} in {whole:,} customers."
    claim = f"{subject} fails for {_percent(part, whole)}% of customers."
    for said, restated in ((evidence, claim), (claim, evidence)):
        verdict = _verdict(checks, restated, said)
        assert verdict.label not in (Label.CONTRADICTED, Label.UNSUPPORTED), verdict.justification


@settings(max_examples=15)
@given(st.integers(1, 3), st.sampled_from(WHOLES), st.sampled_from(SUBJECTS))
def test_a_percentage_that_is_not_the_share_is_contradicted(
    checks: Verifier, part: int, whole: int, subject: str
) -> None:
    evidence = f"{subject} fails for {part} in {whole:,} customers."
    claim = f"{subject} fails for {_percent(part + 1, whole)}% of customers."
    verdict = _verdict(checks, claim, evidence)
    assert (verdict.label, verdict.decided_by) == (Label.CONTRADICTED, "specifics")


def test_one_in_a_span_of_time_is_no_share() -> None:
    assert not any(q.unit == "%" for q in quantities("one inspection in 10 days"))
    assert not any(q.unit == "%" for q in quantities("1 in 10 days"))
