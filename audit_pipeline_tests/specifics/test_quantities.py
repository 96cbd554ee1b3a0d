"""A claim's number matches only the same quantity in the evidence: same unit, not a label."""

import pytest

from audit_pipeline.specifics.quantities import (
    is_near,
    quantities,
    quantity_keys,
    unit_conflicts,
)


def unseen(claim: str, evidence: str) -> list[str]:
    keys = quantity_keys(evidence)
    return [q.surface for q in quantities(claim) if not q.keys & keys]


def test_a_paragraph_number_does_not_supply_the_claims_millimetres() -> None:
    evidence = "### Para 9-2 Brake pads — replace when thinner than 3 mm."
    claim = "Replace the brake pads when the friction material is thinner than 2 mm"
    assert unseen(claim, evidence) == ["2 mm"]
    assert [q.surface for q in quantities(evidence)] == ["3 mm"]


def test_a_different_value_in_the_same_unit_is_a_conflict_candidate() -> None:
    evidence = "Replace the belt every 24 months or 2,000 operating hours, whichever is first."
    (claim,) = quantities("Replace the belt every 36 months.")
    assert unseen("Replace the belt every 36 months.", evidence) == ["36 months"]
    assert claim.unit == "month"
    assert [q.surface for q in unit_conflicts(claim, quantities(evidence))] == ["24 months"]
    assert [q.unit for q in quantities(evidence)] == ["month", "hour"]


def test_the_same_measurement_matches() -> None:
    assert unseen("Logs are kept for 90 days.", "Audit logs are retained for 90 days.") == []
    assert unseen("Refunds within 30 days.", "a 30-day refund window") == []
    assert unseen("Uptime is 99.9%.", "We commit to 99.9 percent uptime.") == []


def test_units_separate_measurements_while_bare_numbers_match_as_before() -> None:
    assert unseen("Replace at 2 mm.", "Inspect every 2 hours.") == ["2 mm"]
    assert unseen("Replace at 2 mm.", "Minimum thickness: 2") == []
    assert unseen("There are 2 tiers.", "Inspect every 2 hours.") == []
    assert unseen("The store opens at 9.", "Open from 9 am.") == []


@pytest.mark.parametrize(
    "text",
    [
        "See Section 4.2 for details.",
        "Sections 4.2 and 4.3 apply.",
        "As required by clause 12(b) and § 5.",
        "Refer to Para 9-2 and Table 3.",
        "1. Keys are rotated.",
        "2) Backups are encrypted.",
        "- 3. Access is reviewed.",
        "## 4.2 Retention",
    ],
)
def test_references_ordinals_and_heading_numbers_are_not_quantities(text: str) -> None:
    assert quantities(text) == []


def test_a_measurement_next_to_a_reference_is_kept() -> None:
    surfaces = [q.surface for q in quantities("Under Section 5, notice is 30 days.\n## 90 days")]
    assert surfaces == ["30 days", "90 days"]


def test_identifiers_match_only_the_same_identifier() -> None:
    assert unseen("Thinner than 2 mm.", "We are SOC 2 and ISO 27001 certified.") == ["2 mm"]
    assert unseen("The API requires 1.2 seconds.", "TLS 1.2 is required.") == ["1.2 seconds"]
    assert unseen("We use TLS 1.3.", "TLS 1.2 is required.") == ["TLS 1.3"]
    assert unseen("We use TLS version 1.2.", "TLS 1.2 is required.") == []
    assert unseen("We are SOC 2 compliant.", "Our SOC2 Type II report") == []
    assert unseen("Certified to ISO 27001.", "ISO/IEC 27001:2022 certificate") == []
    assert unseen("Release v2.0 is current.", "version 2 is current") == []


def test_range_and_currency_units() -> None:
    by_surface = {q.surface: q.unit for q in quantities("Allow 2-3 days; the plan is $20 or 15%.")}
    assert by_surface == {"2": "day", "3 days": "day", "$20": "$", "15%": "%"}


def test_nearness_respects_the_unit() -> None:
    (claim,) = quantities("about 101 days")
    assert is_near(claim, quantity_keys("100 days"))
    assert not is_near(claim, quantity_keys("100 hours"))
    assert is_near(claim, quantity_keys("100"))


@pytest.mark.parametrize(
    "claim",
    [
        "meets the International Organization for Standardization (ISO) 27001:2022 standard",
        "The report is a SOC two report.",
    ],
)
def test_spelled_or_bracketed_identifiers_are_the_same_identifier(claim: str) -> None:
    evidence = "Tallyhawk is certified to ISO/IEC 27001:2022 and has a SOC 2 Type II report."
    assert unseen(claim, evidence) == []
