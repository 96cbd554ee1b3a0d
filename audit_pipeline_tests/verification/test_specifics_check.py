"""Grounding a claim's specifics in all its evidence, about the same thing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from audit_pipeline.verification.evidence_units import evidence_units
from audit_pipeline.verification.specifics_check import Grounding, check_specifics

CONTINUITY = """## 3. Recovery Objectives

| Service | Recovery point objective (RPO) | Recovery time objective (RTO) |
|---|---|---|
| Ledger module and public REST API | **1 hour** | **4 hours** |
| Insights module (analytics) | **1 hour** | **12 hours** |
"""
ROTATION = "Key encryption keys are rotated automatically every 12 months (annually)."
PDF = (
    "Report a lost or stolen laptop to the Security team at security@tallyhawk.example\n"
    "within 1 hour of noticing the loss, and to the police where theft is suspected."
)


def statuses(claim: str, *passages: str) -> dict[str, Grounding]:
    units = evidence_units([(f"c{i}", text) for i, text in enumerate(passages)])
    return {f.specific.surface: f.status for f in check_specifics(claim, units)}


def test_a_table_cell_is_about_its_row_and_column() -> None:
    """ "4 hours" stands in the Ledger row, as its RTO: as the RPO it clashes."""
    assert statuses("The Ledger module's RPO is 4 hours.", CONTINUITY)["4 hours"] is Grounding.CLASH
    assert (
        statuses("The Ledger module's RPO is 1 hour.", CONTINUITY)["1 hour"] is Grounding.GROUNDED
    )
    found = statuses("The Ledger module's recovery time objective is 4 hours.", CONTINUITY)
    assert found["4 hours"] is Grounding.GROUNDED


def test_a_frequency_clashes_with_another_period_and_grounds_in_other_words() -> None:
    assert statuses("Key encryption keys are rotated quarterly.", ROTATION)["quarterly"] is (
        Grounding.CLASH
    )
    assert statuses("Key encryption keys are rotated once a year.", ROTATION)["once a year"] is (
        Grounding.GROUNDED
    )


def test_a_sentence_broken_across_pdf_lines_is_read_whole() -> None:
    found = statuses("A lost laptop must be reported to the Security team within 3 days.", PDF)
    assert found["3 days"] is Grounding.CLASH
    found = statuses("A lost laptop must be reported within 60 minutes.", PDF)
    assert found["60 minutes"] is Grounding.GROUNDED


def test_a_name_stated_nowhere_is_absent_never_a_clash_without_a_counterpart() -> None:
    found = statuses("Access logs are archived by Okta in Frankfurt.", ROTATION)
    assert found["Okta"] is Grounding.ABSENT and found["Frankfurt"] is Grounding.ABSENT


def test_the_same_value_in_the_same_unit_must_be_the_same_number() -> None:
    evidence = "Inventory accuracy, measured by cycle counts, is at least 99.5%."
    assert statuses("Inventory accuracy is at least 99.9%.", evidence)["99.9%"] is Grounding.CLASH
    assert statuses("Inventory accuracy is at least 99.5%.", evidence)["99.5%"] is (
        Grounding.GROUNDED
    )


def test_a_value_the_claim_itself_states_is_no_rival_but_a_swapped_cell_is() -> None:
    """ "DOT 4 only; DOT 5 … never" names both grades: the evidence's DOT 5 sentence cannot be
    DOT 4's other value, however the parse hangs "DOT 4" on the DOT 5 clause."""
    brakes = "Use DOT 4 brake fluid only. DOT 5 silicone fluid must never be used in this system."
    found = statuses("DOT 4 only; DOT 5 silicone fluid must never be used.", brakes)
    assert set(found.values()) == {Grounding.GROUNDED}
    wrong = statuses("DOT 3 only; DOT 5 silicone fluid must never be used.", brakes)
    assert wrong["DOT 3"] is not Grounding.GROUNDED
    swapped = statuses("The Ledger module's RPO is 4 hours and its RTO is 1 hour.", CONTINUITY)
    assert swapped["4 hours"] is Grounding.CLASH


def test_a_value_said_of_nothing_but_the_answer_has_no_rival() -> None:
    """ "The answer is: 35 days" says nothing of what the days are about: "answer" must not
    pair it with "questions are answered within 5 business days"."""
    evidence = (
        "Daily snapshots are retained for 35 days and then expire automatically. "
        "Follow-up questions on a completed questionnaire are answered within 5 business days."
    )
    assert statuses("The answer is: 35 days", evidence)["35 days"] is Grounding.GROUNDED
    assert statuses("The answer is: 30 days", evidence)["30 days"] is not Grounding.GROUNDED


# Things a policy charges for, each with the verb a person loses or breaks it by.
CHARGED = (("library card", "loses"), ("locker key", "loses"), ("parking permit", "damages"))
OTHER_FEES = ("Guitar lessons cost", "Printing costs", "Late returns cost")


@given(
    st.sampled_from(CHARGED),
    st.sampled_from(OTHER_FEES),
    st.integers(min_value=2, max_value=90),
    st.integers(min_value=2, max_value=90),
)
def test_the_sentence_stating_the_value_outweighs_a_rival_that_says_less_of_the_claim(
    charged: tuple[str, str], other_fee: str, amount: int, other: int
) -> None:
    """The parse hangs "£N" on "costs" and leaves its subject out of the value's context; the
    sentence that states "£N" about the lost item still says more of the claim than a fee for
    something else, so the claim is grounded whatever the two amounts are. With the item's own
    sentence stating another amount (and the claim's stated nowhere), the claim clashes."""
    item, verb = charged
    claim = f"Replacing a lost {item} costs the member £{amount}."
    own = f"A member who {verb} a {item} pays £{{}} for a replacement."
    rival = f"{other_fee} £{other} for each member."
    assert statuses(claim, own.format(amount), rival)[f"£{amount}"] is Grounding.GROUNDED
    if other != amount:
        found = statuses(claim, own.format(other), f"{other_fee} £{amount + other} a week.")
        assert found[f"£{amount}"] is Grounding.CLASH
