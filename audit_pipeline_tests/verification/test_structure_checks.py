"""The slot-by-slot checks (issue 31, item 1): direction, modality and agent.

Properties over generated sentences (``hypothesis``): a value bounded from the same side in other
words (and in another unit of its dimension) never clashes, from the other side always does; an
obligation, permission, prohibition or release restated in other words never clashes, a mode the
evidence rules out always does; the same party in the active or the passive never clashes, another
party always does. The sentences are policy templates, not the benchmark's claims.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit_pipeline.text import wordlists
from audit_pipeline.verification.bounds import CEILING, FLOOR, check_direction
from audit_pipeline.verification.evidence_units import evidence_units
from audit_pipeline.verification.polarity import check_polarity
from audit_pipeline.verification.scope import check_scope
from audit_pipeline.verification.structure import check_structure

_PHRASES = wordlists.pairs("verification", "bound_phrases")
# Phrases whose reading depends on what follows (a deadline before an event) are left to the
# examples below.
_TIME_POINT = {
    "no later than ...",
    "not later than ...",
    "no earlier than ...",
    "not earlier than ...",
    "or later",
    "or earlier",
    "at the latest",
    "at the earliest",
    "within ...",
    "as long as ...",
    "longer than ...",
    "no longer than ...",
    "not longer than ...",
    "shorter than ...",
    "or longer",
    "or shorter",
    "older than ...",
    "younger than ...",
    "or older",
    "warmer than ...",
    "colder than ...",
}
SIDES = {
    side: sorted(p for p, s in _PHRASES.items() if s == side and p not in _TIME_POINT)
    for side in (FLOOR, CEILING)
}
# Amounts in two units of one dimension: (small unit, big unit, how many small in one big).
UNITS = (("g", "kg", 1000), ("ml", "litres", 1000), ("minutes", "hours", 60), ("cm", "metres", 100))


def _bounded(phrase: str, amount: str) -> str:
    if phrase.endswith("..."):
        return f"{phrase.removesuffix(' ...')} {amount}"
    return f"{amount} {phrase}"


def _clash(claim: str, evidence: str) -> bool:
    return check_direction(claim, evidence_units([("c", evidence)])) is not None


@given(
    st.sampled_from(SIDES[FLOOR] + SIDES[CEILING]),
    st.data(),
    st.integers(min_value=2, max_value=90),
    st.sampled_from(UNITS),
)
def test_a_bound_restated_from_the_same_side_never_clashes_and_the_other_side_always_does(
    evidence_phrase: str, data: st.DataObject, big: int, units: tuple[str, str, int]
) -> None:
    side = _PHRASES[evidence_phrase]
    other = CEILING if side == FLOOR else FLOOR
    same_phrase = data.draw(st.sampled_from(SIDES[side]))
    other_phrase = data.draw(st.sampled_from(SIDES[other]))
    small_unit, big_unit, ratio = units
    evidence = (
        f"Each sample in the cold store is kept {_bounded(evidence_phrase, f'{big} {big_unit}')}."
    )
    restated = f"{big * ratio:,} {small_unit}"
    assert not _clash(
        f"Each sample in the cold store is kept {_bounded(same_phrase, restated)}.", evidence
    )
    assert _clash(
        f"Each sample in the cold store is kept {_bounded(other_phrase, restated)}.", evidence
    )


@pytest.mark.parametrize(
    ("claim", "evidence", "clash"),
    [
        # A deadline before an event is a floor on the notice.
        (
            "The trip leader must finish the assessment no later than 2 weeks before the trip.",
            "The trip leader must complete a risk assessment at least 2 weeks before the trip.",
            False,
        ),
        # A negation turns the phrase after it.
        (
            "Adults can take no more than 8 tablets in 24 hours.",
            "Adults must not take more than 8 tablets in 24 hours.",
            False,
        ),
        (
            "Adults can take at least 8 tablets in 24 hours.",
            "Adults must not take more than 8 tablets in 24 hours.",
            True,
        ),
        # An evidence value without a side bounds nothing.
        ("The plan needs at least 5 users.", "The plan has 5 users.", False),
        # Before and after a named event.
        (
            "Staff report symptoms to their manager after their shift.",
            "Staff report symptoms to their manager before starting a shift.",
            True,
        ),
        (
            "Staff report symptoms to their manager before the shift starts.",
            "Staff report symptoms to their manager before starting a shift.",
            False,
        ),
        # Times of day are values, not events.
        (
            "Students who arrive after 8:40 am but before 9:10 am are marked late.",
            "A student who arrives after 08:40 but before 09:10 is marked late.",
            False,
        ),
    ],
)
def test_direction_examples(claim: str, evidence: str, clash: bool) -> None:
    assert _clash(claim, evidence) is clash


# How a policy states each deontic mode of "submit the form" by staff.
MODES = {
    "O+": ("must submit", "are required to submit", "have to submit", "are obliged to submit"),
    "P+": ("may submit", "can submit", "are allowed to submit", "are permitted to submit"),
    "P-": ("must not submit", "may not submit", "are not allowed to submit", "cannot submit"),
    "O-": ("need not submit", "do not have to submit", "are not required to submit"),
}
# (claim, evidence) modes the claim cannot state faithfully.
CLASHING = {
    ("O+", "O-"),
    ("O-", "O+"),
    ("P+", "P-"),
    ("P-", "P+"),
    ("O+", "P-"),
    ("P-", "O+"),
    ("O+", "P+"),
}
SUBJECTS = ("Staff", "Tenants", "Members", "Contractors", "Employees")
OBJECTS = ("the expense form", "the leave request", "the incident report", "the access request")


def _modality(claim: str, evidence: str) -> bool:
    return check_structure(claim, evidence_units([("c", evidence)])).modality is not None


@given(
    st.sampled_from(sorted(MODES)),
    st.sampled_from(sorted(MODES)),
    st.data(),
    st.sampled_from(SUBJECTS),
    st.sampled_from(OBJECTS),
)
def test_a_mode_restated_never_clashes_and_a_ruled_out_mode_always_does(
    claim_mode: str, evidence_mode: str, data: st.DataObject, subject: str, thing: str
) -> None:
    claim = f"{subject} {data.draw(st.sampled_from(MODES[claim_mode]))} {thing} to the office."
    evidence = (
        f"{subject} {data.draw(st.sampled_from(MODES[evidence_mode]))} {thing} to the office."
    )
    assert _modality(claim, evidence) is ((claim_mode, evidence_mode) in CLASHING)


def test_a_permission_left_to_choice_releases_an_obligation() -> None:
    evidence = "Staff must let the officer in and show any records the officer asks for."
    assert _modality("Staff may let an environmental health officer in if they choose.", evidence)
    assert not _modality("Staff are required to let an environmental health officer in.", evidence)


def test_a_limited_permission_is_not_held_against_a_prohibition_beyond_the_limit() -> None:
    evidence = "Food must not be out of temperature control more than once."
    assert not _modality("Food may be out of temperature control only once.", evidence)


PARTIES = ("The landlord", "The head chef", "The patient", "The county council", "Quillstone")
ACTS = (
    ("pays", "paid", "the repair bill"),
    ("writes", "written", "the allergen matrix"),
    ("approves", "approved", "the trip plan"),
    ("signs", "signed", "the inventory"),
)


def _agent(claim: str, evidence: str) -> bool:
    return check_structure(claim, evidence_units([("c", evidence)])).agent is not None


@given(st.sampled_from(PARTIES), st.sampled_from(PARTIES), st.sampled_from(ACTS))
def test_the_same_party_in_the_passive_never_clashes_and_another_known_party_always_does(
    party: str, other: str, act: tuple[str, str, str]
) -> None:
    """Another party clashes where the evidence knows it (a sentence of its own names it);
    a party the evidence never names may be the same one in other words ("the plane" for "the
    aircraft"), so it does not."""
    active, participle, thing = act
    said = f"{party} {active} {thing} every year."
    evidence = f"{said} {other} keeps the keys to the office."
    by = f"{party[0].lower()}{party[1:]}"
    passive = f"{thing[0].upper()}{thing[1:]} is {participle} by {by} every year."
    assert not _agent(passive, evidence)
    assert not _agent(said, evidence)
    assert _agent(f"{other} {active} {thing} every year.", evidence) is (party != other)
    assert not _agent(f"{other} {active} {thing} every year.", said)


@pytest.mark.parametrize(
    ("claim", "evidence", "clash"),
    [
        (
            "For repairs over £10,000, you choose the builder.",
            "We choose the builder for repairs over £10,000.",
            True,
        ),
        # "We" may be the company a claim names.
        (
            "For repairs over £10,000, the builder is chosen by Harbourline.",
            "We choose the builder for repairs over £10,000.",
            False,
        ),
        # Another thing acted on is another act.
        (
            "Residential trips in the UK are approved by the headteacher.",
            "Day trips in the UK are approved by the educational visits coordinator.",
            False,
        ),
        # A clause that says what something is names no party.
        (
            "The escape of water excess is £450 whatever the cover level.",
            "The escape of water excess is £450 on every cover level.",
            False,
        ),
        (
            "Quillstone pays the VAT on its fees.",
            "Quillstone invoices its fees annually. Fees do not include VAT or other sales "
            "taxes; the Customer pays them.",
            True,
        ),
        # One party in other words: the evidence never names the claim's.
        (
            "The plane went down near the regional airport.",
            "The aircraft went down near the regional airport.",
            False,
        ),
    ],
)
def test_agent_examples(claim: str, evidence: str, clash: bool) -> None:
    assert _agent(claim, evidence) is clash


def test_a_value_under_no_verb_is_compared_without_hanging() -> None:
    # A verbless claim (a heading, a table-like line) has no predicate to compare.
    assert _clash(
        "Emergency repairs: at least £2,000.", "We pay for emergency repairs up to £2,000."
    )


_UNIVERSAL = wordlists.sequence("verification", "universal_phrases")
_RESTRICTING = wordlists.sequence("verification", "restricting_phrases")
# (claim without its marker, the restriction the evidence adds)
SCOPE_ACTS = (
    ("A licence can be reassigned to another person", "the first person leaves"),
    ("Food can be refrozen after defrosting", "it has been cooked first"),
    ("Money in the home is covered up to £500", "it is stolen after a break-in"),
)


@given(st.sampled_from(SCOPE_ACTS), st.sampled_from(_UNIVERSAL), st.sampled_from(_RESTRICTING))
def test_a_dropped_condition_clashes_only_where_the_evidence_restricts_the_act(
    act: tuple[str, str], marker: str, restriction: str
) -> None:
    said, condition = act
    claim = f"{said}, {marker}."
    restricted = f"{said} {restriction} {condition}."
    plain = f"{said}."
    assert check_scope(claim, evidence_units([("c", restricted)])).condition is not None
    assert check_scope(claim, evidence_units([("c", plain)])).condition is None
    # A claim that keeps the restriction keeps the condition.
    assert (
        check_scope(f"{restricted[:-1]}, {marker}.", evidence_units([("c", restricted)])).condition
        is None
    )


@pytest.mark.parametrize(
    ("claim", "evidence", "clash"),
    [
        (
            "Every delivery is put away within 15 minutes of arrival.",
            "Chilled and frozen deliveries are put away within 15 minutes of arrival.",
            True,
        ),
        (
            "Every delivery is put away within 15 minutes of arrival.",
            "Deliveries are put away within 15 minutes of arrival.",
            False,
        ),
        # The claim says the narrowing words itself.
        (
            "Every chilled delivery is put away within 15 minutes of arrival.",
            "Chilled deliveries are put away within 15 minutes of arrival.",
            False,
        ),
        # One evidence clause about the act without the narrowing clears the claim.
        (
            "Every delivery is put away within 15 minutes of arrival.",
            "Chilled deliveries are put away within 15 minutes of arrival. All deliveries are put "
            "away within 15 minutes of arrival.",
            False,
        ),
        (
            "Charities get a 30% discount on every plan.",
            "Charities get a 30% discount on the Team and Business plans.",
            True,
        ),
    ],
)
def test_scope_examples(claim: str, evidence: str, clash: bool) -> None:
    assert (check_scope(claim, evidence_units([("c", evidence)])).scope is not None) is clash


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # "prohibited" forbids like "not allowed".
        (
            "In the loading bay, open flames are not allowed.",
            "Open flames in the loading bay are prohibited.",
        ),
        # A permission elsewhere in the passage is not the act the claim obliges.
        (
            "Staff have to let their manager know of an unplanned absence.",
            "Staff may hold a balance of up to 40 days; above that, their manager agrees a plan.",
        ),
    ],
)
def test_restated_modes_of_other_wording_do_not_clash(claim: str, evidence: str) -> None:
    assert not _modality(claim, evidence)


def test_a_claim_that_names_the_evidence_party_itself_has_no_rival() -> None:
    evidence = "Electrical work practices follow NFPA 70E. Field crews wear arc-rated gloves."
    assert not _agent("Field crews follow NFPA 70E for electrical work practices.", evidence)


@given(
    st.sampled_from(SIDES[CEILING]),
    st.sampled_from(SIDES[FLOOR]),
    st.integers(min_value=2, max_value=40),
    st.sampled_from(("tablets", "bags", "guests")),
)
def test_a_bounded_permission_restates_a_prohibition_beyond_the_bound(
    ceiling: str, floor: str, amount: int, things: str
) -> None:
    """ "can take no more than 8" is "must not take more than 8": no polarity clash, whatever
    the ceiling's words; a floor ("can take at least 8") is the direction check's clash."""
    evidence = evidence_units([("c", f"Members must not bring more than {amount} {things}.")])
    restated = f"Members can bring {_bounded(ceiling, f'{amount} {things}')}."
    assert check_polarity(restated, evidence).contrary is None
    assert check_direction(restated, evidence) is None
    raised = f"Members can bring {_bounded(floor, f'{amount} {things}')}."
    assert check_direction(raised, evidence) is not None


@pytest.mark.parametrize(
    ("act", "scope"),
    [
        ("Working alone on equipment", "above 600 volts"),
        ("Lifting parcels", "over 25 kg"),
        ("Climbing ladders", "more than 3 metres high"),
    ],
)
def test_the_same_bound_on_both_sides_leaves_permitted_against_prohibited_contrary(
    act: str, scope: str
) -> None:
    """ "work on equipment above 600 volts is permitted" against "... is prohibited": the
    bound says which work, so the modes are contrary (only bounds that differ, "no more than
    8" against "more than 8", make a permission restate a prohibition)."""
    evidence = evidence_units([("c", f"{act} {scope} is prohibited.")])
    assert check_polarity(f"{act} {scope} is permitted.", evidence).contrary is not None
