"""A claim about every item of a table that a row of it contradicts (issue 31, item 1: scope
over tables).

Properties over generated tables (``hypothesis``): "every <item> includes <feature>" clashes
exactly when a cell of the feature's line denies it or says otherwise than a cell that
includes it; "none of the <items> includes
<feature>" exactly when one says "Included"; a claim naming one item, or restricting itself,
never clashes; a claim whose value every cell of a column states never clashes, one that some
cells state and another cell does not always does. The tables are made up here (gym
memberships, phone tariffs, car hire), not taken from the meaning benchmark.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from audit_pipeline.verification.evidence_units import evidence_units
from audit_pipeline.verification.scope import check_scope
from audit_pipeline.verification.tables import table_clash

# (heading noun in plural, the items, features a row can be about)
CATALOGUES = (
    ("Membership Tiers", "membership tier", ("Bronze", "Silver", "Gold"),
     ("sauna access", "towel service", "guest passes")),
    ("Tariffs", "tariff", ("Basic", "Plus", "Max", "Unlimited"),
     ("roaming", "voicemail", "tethering")),
    ("Hire Packages", "hire package", ("Economy", "Family", "Executive"),
     ("child seats", "breakdown cover", "a second driver")),
)  # fmt: skip
DENIALS = ("Not included", "Not available", "No")
OTHER = ("Optional extra", "£5 a day", "On request")


def _row_table(heading: str, items: tuple[str, ...], feature: str, cells: list[str]) -> str:
    header = "| Feature | " + " | ".join(items) + " |"
    separator = "|---" * (len(items) + 1) + "|"
    row = f"| {feature.capitalize()} | " + " | ".join(cells) + " |"
    other = "| Price | " + " | ".join(f"£{10 * (i + 1)} a month" for i in range(len(items))) + " |"
    return f"# Northgate: {heading}\n\n{header}\n{separator}\n{other}\n{row}\n"


@st.composite
def _feature_rows(draw: st.DrawFn) -> tuple[str, str, tuple[str, ...], str, list[str]]:
    heading, noun, items, features = draw(st.sampled_from(CATALOGUES))
    feature = draw(st.sampled_from(features))
    cells = draw(
        st.lists(
            st.sampled_from(("Included", *DENIALS, *OTHER)),
            min_size=len(items),
            max_size=len(items),
        )
    )
    return heading, noun, items, feature, cells


def _clash(claim: str, table: str) -> bool:
    return table_clash(claim, [("c1", table)]) is not None


@given(_feature_rows())
def test_every_item_includes_clashes_exactly_when_a_cell_denies_it(
    drawn: tuple[str, str, tuple[str, ...], str, list[str]],
) -> None:
    heading, noun, items, feature, cells = drawn
    table = _row_table(heading, items, feature, cells)
    claim = f"Every Northgate {noun} includes {feature}."
    # A denial contradicts it; so does an optional extra or a price where another tier has it
    # "Included" (the claim's own word); with no cell saying it, the claim is not read here.
    included = "Included" in cells and any(cell != "Included" for cell in cells)
    assert _clash(claim, table) == (any(cell in DENIALS for cell in cells) or included)


@given(_feature_rows())
def test_none_includes_clashes_exactly_when_a_cell_says_included(
    drawn: tuple[str, str, tuple[str, ...], str, list[str]],
) -> None:
    heading, noun, items, feature, cells = drawn
    table = _row_table(heading, items, feature, cells)
    claim = f"None of the Northgate {noun}s includes {feature}."
    assert _clash(claim, table) == ("Included" in cells)


@given(_feature_rows(), st.data())
def test_a_claim_about_one_item_or_with_a_restriction_never_clashes(
    drawn: tuple[str, str, tuple[str, ...], str, list[str]], data: st.DataObject
) -> None:
    heading, noun, items, feature, cells = drawn
    table = _row_table(heading, items, feature, cells)
    item = data.draw(st.sampled_from(items))
    assert not _clash(f"The {item} {noun} includes {feature}.", table)
    assert not _clash(f"Every {noun} includes {feature} except the {items[0]} one.", table)
    assert not _clash(f"Not every Northgate {noun} includes {feature}.", table)


PLANS = ("Starter", "Growth", "Scale", "Corporate")
SUPPORT = ("Email", "Chat", "Phone", "Named manager")


@given(
    st.lists(st.sampled_from(SUPPORT), min_size=len(PLANS), max_size=len(PLANS)),
    st.sampled_from(SUPPORT),
)
def test_a_value_some_rows_state_and_another_row_does_not_clashes(
    column: list[str], claimed: str
) -> None:
    table = (
        "## Support\n\n| Plan | Support channel | Seats |\n|---|---|---|\n"
        + "".join(f"| {plan} | {cell} | {i + 2} |\n" for i, (plan, cell) in enumerate(
            zip(PLANS, column, strict=True)))
    )  # fmt: skip
    claim = f"All plans come with {claimed.lower()} support."
    expected = claimed in column and any(cell != claimed for cell in column)
    assert _clash(claim, table) == expected


def test_a_cell_holding_the_claimed_value_agrees_with_it() -> None:
    table = (
        "| Plan | Channels |\n|---|---|\n| Starter | Email |\n| Growth | Email and phone |\n"
        "| Corporate | Email, phone and a named manager |\n"
    )
    assert not _clash("Every plan includes email support.", table)


def test_the_reason_names_the_item_and_its_cell() -> None:
    table = _row_table("Tariffs", ("Basic", "Plus"), "roaming", ["Not available", "Included"])
    found = table_clash("Every tariff includes roaming.", [("c1", table)])
    assert found is not None
    assert found.claim_words == "Every tariff"
    assert found.evidence_words == "Not available for Basic"
    assert "'Every tariff' where the evidence says 'Not available for Basic'" in found.describe()


def test_the_narrowing_words_of_the_claim_choose_its_rows() -> None:
    table = (
        "## Free travel\n\n| Passenger group | Free pass |\n|---|---|\n"
        "| Adults aged 60 to 65 | Yes |\n| Adults aged 66 or over | Yes |\n"
        "| Adults under 60 | No |\n"
    )
    # "aged 60 or over" shares most with the first two rows: the third is not among them.
    assert not _clash("Every passenger aged 60 or over gets a free pass.", table)
    assert _clash("Every passenger gets a free pass.", table)
    assert _clash("No passenger aged 66 or over gets a free pass.", table)
    # A claim that names a row ("adults under 60") is about that row, not every row.
    assert not _clash("Every passenger in the group adults under 60 gets a free pass.", table)


def test_the_scope_check_reads_tables_through_its_passages() -> None:
    table = _row_table("Tariffs", ("Basic", "Plus"), "roaming", ["Not available", "Included"])
    units = evidence_units([("c1", table)])
    reading = check_scope("Every tariff includes roaming.", units, [("c1", table)])
    assert reading.scope is not None and reading.scope.chunk_id == "c1"
    assert check_scope("Every tariff includes roaming.", units).scope is None


ALGORITHMS = (
    "## Approved algorithms\n\n| Use | Algorithm | Minimum key length |\n|---|---|---|\n"
    "| Symmetric encryption | AES-GCM | 256 bits |\n| Signatures | RSA | 3072 bits |\n\n"
    "- Code signing and any other RSA use require RSA keys of at least 3072 bits.\n"
)


def test_the_evidence_s_own_sentence_and_a_remainder_are_no_claim_about_every_row() -> None:
    """ "any other RSA use" is the rest of the RSA rows, not every row of the table; and a
    sentence of the evidence repeated word for word says what the evidence says."""
    stated = "Code signing and any other RSA use require RSA keys of at least 3072 bits."
    assert not _clash(stated, ALGORITHMS)
    assert not _clash("Every other use requires RSA keys.", ALGORITHMS)
    assert _clash("Every use requires RSA keys.", ALGORITHMS)
