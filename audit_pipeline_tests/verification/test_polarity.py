"""Denials and reversed obligations against the evidence clause about the same act."""

from __future__ import annotations

import pytest

from audit_pipeline.verification.evidence_units import evidence_units
from audit_pipeline.verification.polarity import check_polarity, clauses_of

MFA = (
    "- **Multi-factor authentication (MFA) is required for all workforce access**, with no "
    "exceptions for office networks or VPN connections.\n"
    "- **SMS and voice calls are not permitted as MFA factors.**"
)
TERMS = (
    "- Customers must declare the value of any consignment worth more than €5,000.\n"
    "- Customers must not send cash, precious metals or jewellery with Ostrander Freight."
)


def contrary(claim: str, evidence: str) -> bool:
    return check_polarity(claim, evidence_units([("c", evidence)])).contrary is not None


@pytest.mark.parametrize(
    "claim",
    [
        "I do not enforce multi-factor authentication.",
        "Multi-factor authentication is not required for workforce access.",
        "SMS can be used as an MFA factor.",
    ],
)
def test_a_denial_or_a_reversal_of_the_evidence_is_contrary(claim: str) -> None:
    assert contrary(claim, MFA)


@pytest.mark.parametrize(
    "claim",
    [
        "Multi-factor authentication is required for all workforce access.",
        "SMS and voice calls cannot be used as MFA factors.",
    ],
)
def test_a_faithful_restatement_is_not(claim: str) -> None:
    assert not contrary(claim, MFA)


def test_deontic_modes_compare_on_what_they_oblige_or_permit() -> None:
    assert contrary("Customers do not need to state the value of consignments over €5,000.", TERMS)
    assert contrary("Customers are allowed to include cash or jewellery in a consignment.", TERMS)
    assert not contrary("Cash, precious metals and jewellery may not be sent.", TERMS)


@pytest.mark.parametrize(
    ("clause", "mode"),
    [
        ("Standard and housebound delivery are free of charge.", ""),
        ("The first visit is free for members.", ""),
        ("Patients are free to bring unwanted medicines back.", "P+"),
        ("Patients are not free to leave before the check.", "P-"),
    ],
)
def test_free_of_charge_is_a_price_and_free_to_a_permission(clause: str, mode: str) -> None:
    """A price read as a permission clashed with any prohibition about the same service."""
    assert [c.mode for c in clauses_of(clause)] == [mode]


@pytest.mark.parametrize(
    ("claim", "claim_words", "evidence_words"),
    [
        ("Multi-factor authentication is not required for workforce access.", "is not required",
         "is required"),
        ("SMS can be used as an MFA factor.", "can be used", "are not permitted"),
    ],
)  # fmt: skip
def test_the_reason_names_the_stance_of_both_clauses(
    claim: str, claim_words: str, evidence_words: str
) -> None:
    """An auditor reads which words turned the statement round, not only the sentence."""
    found = check_polarity(claim, evidence_units([("c", MFA)])).contrary
    assert found is not None
    assert f"'{claim_words}' where the evidence says '{evidence_words}'" in found.describe()
