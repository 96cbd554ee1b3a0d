"""Write the product-domain specifics benchmark: synthetic vaults and labelled answer claims.

    python -m benchmarks.specifics_data [--out benchmarks/data/specifics]

What it measures. An audited bot fails in the product's domain by stating a specific its vault
does not say: a changed deadline, frequency, range, amount or percentage, a value read from the
wrong table column or row, a vendor, auditor, place or control id the vault never names, a date
moved, an obligation denied or a prohibition turned into a permission. A verifier must flag
those and must not flag a faithful answer that restates the same specific in other words or
units ("every 12 months" as "annually", "1 hour" as "60 minutes", "€20" as "20 euros").

How the data is made. Four vaults of trusted documents in domains unlike the sample vault (a
hospital's equipment maintenance, procurement and sterilisation procedures; a freight
company's terms of carriage, carrier SLA, dangerous-goods and warehouse standards; a city
utility's field safety, outage response and water sampling; a university's leave, travel and
research-leave policies) are written from one list of **facts**. A fact is a sentence (or a
table cell) with one slot for its specific, the value the vault gives it, a few ways an
assistant might phrase the fact, the other forms of the same value, and plausible wrong
values. The documents are rendered from the facts (with headings, bullet lists, tables and
connecting prose that holds no fact), and every claim is derived from a fact:

- a **paraphrase** puts the vault's value, or one of its other forms, into another phrasing
  of the fact (or into the vault's own sentence: then only the value's form changes);
- a **fabrication** puts a wrong value into the vault's own sentence (a minimal edit) or into
  another phrasing; a table cell's fabrication takes the value of the same row's other column,
  or of another row in the same column.

So a paraphrase and a fabrication of one fact share their wording, and only the specific tells
them apart; the vault and the answers cannot drift apart, because neither is written twice.
A fabrication is false on a literal reading too, not only as a misquote of the policy: where a
fact is a threshold ("trenches 5 feet deep or more", "purchases up to £5,000", "at least
99.5%"), the wrong values move the threshold the way that makes the claim say more than the
vault ("4 feet", "£10,000", "99.9%"), never the way that would make it a weaker true statement;
no wrong range contains the vault's range. A deadline or interval stated as the rule itself
("within 14 days", "every 12 months") is wrong in either direction, as an auditor reads it.
Each fact has its own seeded random stream (``SEED`` and the fact's key), so the output is the
same byte for byte on every run, and adding a fact changes no other fact's claims.

Why written by hand rather than mined: the verifier is being rewritten against this benchmark's
figures, so the claims were written without looking at how it decides (no claim is shaped to
pass or fail one of its rules), in the register of real policy documents. The names are
invented (a fabricated vendor, auditor or place is absent from every vault); the standards
cited (ISO 13485, IEC 62353, NFPA 70E, ADR, OSHA 1910.147, HTM 01-01 ...) are real ones, and a
wrong identifier is often a real standard that does not apply.

``claims.jsonl`` rows: ``id``, ``vault`` (a folder next to it), ``claim``, ``label``
(``fabricated`` | ``paraphrase``), ``kind`` (what was changed: ``FABRICATION_KINDS``;
for a paraphrase, how it restates the fact: ``PARAPHRASE_KINDS``), ``note`` (what the vault
says and what the claim says), and for checking: ``document``, ``fact``, ``vault_value`` (the
specific as the vault states it) and ``claim_value`` (the specific as the claim states it).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

SEED = 22
DEFAULT_OUT = Path(__file__).resolve().parent / "data" / "specifics"
CLAIMS_FILE = "claims.jsonl"

FABRICATION_KINDS = (
    "duration",
    "frequency",
    "range",
    "number",
    "money",
    "percent",
    "date",
    "table_cell",
    "vendor",
    "auditor",
    "place",
    "identifier",
    "negated_obligation",
    "forbidden_allowed",
)
# Value forms (the specific itself is restated) and phrasings (the value is kept).
FORM_KINDS = (
    "unit_change",
    "number_word",
    "frequency_word",
    "range_word",
    "money_format",
    "percent_word",
    "date_format",
    "obligation_synonym",
    "prohibition_synonym",
)
PHRASING_KINDS = ("reword", "reorder", "voice", "table_reading")
PARAPHRASE_KINDS = FORM_KINDS + PHRASING_KINDS
FABRICATED, PARAPHRASE = "fabricated", "paraphrase"
MIN_PER_KIND = 15

Form = tuple[str, str]  # (paraphrase kind, text)


# ----------------------------------------------------------------------------- value forms

# Other forms of a value that say exactly the same thing. Only exact equivalences: "30 days"
# is not "a month", "26 weeks" is not "six months".
SAME: dict[str, tuple[Form, ...]] = {
    "1 hour": (("unit_change", "60 minutes"),),
    "2 hours": (("unit_change", "120 minutes"), ("number_word", "two hours")),
    "3 hours": (("unit_change", "180 minutes"), ("number_word", "three hours")),
    "4 hours": (("unit_change", "240 minutes"), ("number_word", "four hours")),
    "8 hours": (("unit_change", "480 minutes"), ("number_word", "eight hours")),
    "24 hours": (("unit_change", "one day"), ("number_word", "twenty-four hours")),
    "48 hours": (("unit_change", "two days"), ("number_word", "forty-eight hours")),
    "15 minutes": (("unit_change", "a quarter of an hour"), ("number_word", "fifteen minutes")),
    "30 minutes": (("unit_change", "half an hour"), ("number_word", "thirty minutes")),
    "45 minutes": (("unit_change", "three quarters of an hour"),),
    "90 minutes": (("unit_change", "an hour and a half"), ("unit_change", "1.5 hours")),
    "3 minutes": (("unit_change", "180 seconds"), ("number_word", "three minutes")),
    "7 days": (("unit_change", "one week"),),
    "14 days": (("unit_change", "two weeks"), ("unit_change", "a fortnight")),
    "21 days": (("unit_change", "three weeks"),),
    "6 weeks": (("unit_change", "42 days"), ("number_word", "six weeks")),
    # Weeks of leave are not restated as days: a "day" of leave is usually a working day.
    "4 weeks": (("number_word", "four weeks"),),
    "26 weeks": (("number_word", "twenty-six weeks"),),
    "12 months": (("unit_change", "one year"), ("number_word", "twelve months")),
    "24 months": (("unit_change", "two years"),),
    "10 years": (("unit_change", "120 months"), ("number_word", "ten years")),
    "every 12 months": (("frequency_word", "annually"), ("frequency_word", "once a year")),
    "annually": (("frequency_word", "every 12 months"), ("frequency_word", "once a year")),
    "every 6 months": (("frequency_word", "twice a year"), ("number_word", "every six months")),
    "twice a year": (("frequency_word", "every six months"), ("frequency_word", "semi-annually")),
    "every 2 years": (("unit_change", "every 24 months"), ("frequency_word", "every other year")),
    "every 24 months": (("unit_change", "every two years"), ("frequency_word", "every other year")),
    "every 3 years": (("unit_change", "every 36 months"), ("number_word", "every three years")),
    "every 5 years": (("unit_change", "every 60 months"), ("number_word", "every five years")),
    "every 30 minutes": (("unit_change", "every half hour"), ("frequency_word", "twice an hour")),
    "quarterly": (
        ("frequency_word", "every three months"),
        ("frequency_word", "four times a year"),
    ),
    "monthly": (("frequency_word", "once a month"), ("frequency_word", "every month")),
    "weekly": (("frequency_word", "once a week"), ("frequency_word", "every week")),
    "daily": (("frequency_word", "every day"), ("frequency_word", "once a day")),
    "48-72 hours": (("unit_change", "2-3 days"), ("range_word", "48 to 72 hours")),
    "1,000 kg": (("unit_change", "one tonne"), ("unit_change", "1,000 kilograms")),
    "10 metres": (("unit_change", "10 m"), ("number_word", "ten metres")),
    "5 feet": (("unit_change", "60 inches"), ("number_word", "five feet")),
    "600 volts": (("unit_change", "600 V"), ("unit_change", "0.6 kV")),
    "134 °C": (("unit_change", "134 degrees Celsius"),),
    "14:00": (("unit_change", "2 p.m."), ("unit_change", "2pm")),
    "$2 million": (("money_format", "$2,000,000"), ("money_format", "2 million US dollars")),
    "A$0.88": (("money_format", "88 cents"), ("money_format", "AUD 0.88")),
    "100%": (("percent_word", "100 percent"), ("percent_word", "one hundred per cent")),
}
_WORDS = {
    "1": "one",
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "10": "ten",
    "12": "twelve",
    "15": "fifteen",
    "20": "twenty",
    "30": "thirty",
    "40": "forty",
    "60": "sixty",
    "90": "ninety",
}
_CURRENCIES = (  # symbol, words, code: longest symbol first
    ("A$", "Australian dollars", "AUD"),
    ("£", "pounds", "GBP"),
    ("€", "euros", "EUR"),
    ("$", "US dollars", "USD"),
)
_DATE_FORMATS = ("%d %B %Y", "%B %d, %Y")


def _date_forms(value: str) -> tuple[Form, ...]:
    for fmt in _DATE_FORMATS:
        try:
            day = datetime.strptime(value, fmt)
        except ValueError:
            continue
        british = f"{day.day} {day:%B %Y}"
        american = f"{day:%B} {day.day}, {day.year}"
        other = american if fmt == "%d %B %Y" else british
        return (("date_format", other), ("date_format", day.strftime("%Y-%m-%d")))
    return ()


def _auto_forms(value: str) -> tuple[Form, ...]:
    """Forms that follow from the value's shape: a percentage in words, an amount with its
    currency in words or as a code, a date in other formats, a range in words, a count
    spelled out."""
    if m := re.fullmatch(r"(\d[\d.,]*)%", value):
        return (("percent_word", f"{m[1]} percent"), ("percent_word", f"{m[1]} per cent"))
    for symbol, words, code in _CURRENCIES:
        if value.startswith(symbol) and value[len(symbol) : len(symbol) + 1].isdigit():
            amount = value[len(symbol) :]
            return (("money_format", f"{amount} {words}"), ("money_format", f"{code} {amount}"))
    if dates := _date_forms(value):
        return dates
    if m := re.fullmatch(r"(\d[\d.]*)-(\d[\d.]*)(.*)", value):
        low, high, rest = m.groups()
        forms = [("range_word", f"{low} to {high}{rest}")]
        if low in _WORDS and high in _WORDS:
            forms.append(("range_word", f"{_WORDS[low]} to {_WORDS[high]}{rest}"))
        return tuple(forms)
    if (m := re.fullmatch(r"(\d+)( [a-z].*)?", value)) and m[1] in _WORDS:
        return (("number_word", f"{_WORDS[m[1]]}{m[2] or ''}"),)
    return ()


OBLIGATION_FORMS: tuple[Form, ...] = (
    ("obligation_synonym", "are required to"),
    ("obligation_synonym", "have to"),
)
SINGULAR_OBLIGATION_FORMS: tuple[Form, ...] = (
    ("obligation_synonym", "is required to"),
    ("obligation_synonym", "has to"),
)
PROHIBITION_FORMS: tuple[Form, ...] = (
    ("prohibition_synonym", "may not"),
    ("prohibition_synonym", "are not allowed to"),
)


# ----------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class Fact:
    """One checkable statement of a vault document.

    ``sentence`` is how the document states it, ``{v}`` standing for ``value`` (a bare
    ``"{v}"`` is a cell of a metadata table). ``say`` are other phrasings, each with its
    paraphrase kind, again with ``{v}``; ``same`` adds forms of the value to the ones that
    follow from its shape; ``wrong`` are values the vault does not give this fact.
    """

    key: str
    kind: str
    sentence: str
    value: str
    say: tuple[Form, ...]
    wrong: tuple[str, ...]
    same: tuple[Form, ...] = ()
    bold: bool = False

    def forms(self) -> tuple[Form, ...]:
        found = self.same or SAME.get(self.value, ()) or _auto_forms(self.value)
        return tuple(f for f in found if f[1] != self.value)

    def rendered(self) -> str:
        return self.sentence.replace("{v}", f"**{self.value}**" if self.bold else self.value)

    @property
    def copy(self) -> str | None:
        """The document's own sentence, where the fact is one (not a metadata cell)."""
        return None if self.sentence == "{v}" else self.sentence


def fact(
    key: str,
    kind: str,
    sentence: str,
    value: str,
    say: Sequence[str | Form],
    wrong: Sequence[str],
    same: Sequence[Form] = (),
    bold: bool = False,
) -> Fact:
    """A fact; a phrasing given as a plain string is a ``reword``."""
    phrasings = tuple(("reword", s) if isinstance(s, str) else s for s in say)
    return Fact(key, kind, sentence, value, phrasings, tuple(wrong), tuple(same), bold)


def must(
    key: str,
    sentence: str,
    say: Sequence[str | Form],
    wrong: Sequence[str],
    singular: bool = False,
) -> Fact:
    """An obligation stated with "must" (the slot); a fabrication denies it."""
    forms = SINGULAR_OBLIGATION_FORMS if singular else OBLIGATION_FORMS
    return fact(key, "negated_obligation", sentence, "must", say, wrong, forms)


def must_not(
    key: str,
    sentence: str,
    say: Sequence[str | Form],
    wrong: Sequence[str] = ("may", "are allowed to"),
    value: str = "must not",
    same: Sequence[Form] = PROHIBITION_FORMS,
) -> Fact:
    """A prohibition (the slot); a fabrication turns it into a permission."""
    return fact(key, "forbidden_allowed", sentence, value, say, wrong, same)


@dataclass(frozen=True)
class Column:
    header: str
    say: tuple[str, ...]  # phrasings of one cell: "{row}" the row's subject, "{v}" the value


@dataclass(frozen=True)
class Row:
    label: str  # as the table's first column shows it
    subject: str  # how a sentence names the row
    cells: tuple[str, ...]
    notes: tuple[str, ...] = ()  # columns that hold no fact, rendered after the label


@dataclass(frozen=True)
class Table:
    """A table whose cells are facts: a claim about a cell can take the value of the same
    row's other column (``RPO`` read as ``RTO``) or of another row."""

    key: str
    first: str
    note_headers: tuple[str, ...]
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Meta:
    """The field/value table at the top of a document; a value may be a fact."""

    rows: tuple[tuple[str, str | Fact], ...]


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Para:
    parts: tuple[str | Fact, ...]


@dataclass(frozen=True)
class Bullets:
    items: tuple[str | Fact, ...]


Block = Meta | Heading | Para | Bullets | Table


@dataclass(frozen=True)
class Document:
    name: str
    title: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Vault:
    name: str
    documents: tuple[Document, ...] = field(default_factory=tuple)


def h(text: str, level: int = 2) -> Heading:
    return Heading(text, level)


def p(*parts: str | Fact) -> Para:
    return Para(parts)


def ul(*items: str | Fact) -> Bullets:
    return Bullets(items)


def meta(*rows: tuple[str, str | Fact]) -> Meta:
    return Meta(rows)


# ----------------------------------------------------------------------------- vault 1


def _hospital() -> Vault:
    """St Aldric's Hospital: clinical engineering, procurement, sterile services (GBP)."""
    pm = Table(
        "hosp.pm",
        "Equipment class",
        (),
        (
            Column(
                "Preventive maintenance (PM) interval",
                (
                    "The preventive maintenance interval for {row} is {v}.",
                    "{row} receive preventive maintenance at intervals of {v}.",
                ),
            ),
            Column(
                "Electrical safety test (EST) interval",
                (
                    "The electrical safety test interval for {row} is {v}.",
                    "{row} are electrically safety tested at intervals of {v}.",
                ),
            ),
        ),
        (
            Row("Infusion pumps", "infusion pumps", ("6 months", "12 months")),
            Row("Defibrillators", "defibrillators", ("3 months", "12 months")),
            Row("Patient monitors", "patient monitors", ("12 months", "24 months")),
            Row("Ventilators", "ventilators", ("3 months", "6 months")),
            Row("Dialysis machines", "dialysis machines", ("4 months", "12 months")),
        ),
    )
    priority = Table(
        "hosp.priority",
        "Priority",
        ("Typical faults",),
        (
            Column(
                "Response time",
                (
                    "Clinical Engineering responds to {row} within {v}.",
                    "The response time for {row} is {v}.",
                ),
            ),
            Column(
                "Repair target",
                (
                    "{row} are to be repaired within {v}.",
                    "The repair target for {row} is {v}.",
                ),
            ),
        ),
        (
            Row(
                "P1 (critical)",
                "P1 (critical) faults",
                ("30 minutes", "4 hours"),
                ("Life-support or theatre equipment out of service",),
            ),
            Row(
                "P2 (high)",
                "P2 (high) faults",
                ("2 hours", "24 hours"),
                ("Diagnostic equipment with no backup unit",),
            ),
            Row(
                "P3 (normal)",
                "P3 (normal) faults",
                ("1 business day", "5 business days"),
                ("Ward equipment with a backup available",),
            ),
            Row(
                "P4 (low)",
                "P4 (low) faults",
                ("5 business days", "20 business days"),
                ("Cosmetic or non-clinical faults",),
            ),
        ),
    )
    manual = Document(
        "medical-equipment-maintenance-manual.md",
        "St Aldric's Hospital Medical Equipment Maintenance Manual",
        (
            meta(
                (
                    "Document ID",
                    fact(
                        "hosp.man_id",
                        "identifier",
                        "{v}",
                        "CE-MAN-01",
                        (
                            "The hospital's medical equipment maintenance manual is document {v}.",
                            (
                                "voice",
                                "{v} is the document ID of the equipment maintenance manual.",
                            ),
                        ),
                        ("CE-MAN-04", "CE-POL-01"),
                    ),
                ),
                ("Version", "3.2"),
                ("Owner", "Head of Clinical Engineering"),
                (
                    "Approved",
                    fact(
                        "hosp.man_date",
                        "date",
                        "{v}",
                        "12 February 2025",
                        (
                            "The medical equipment maintenance manual was approved on {v}.",
                            (
                                "voice",
                                "Approval of the equipment maintenance manual was given on {v}.",
                            ),
                        ),
                        ("21 February 2025", "12 February 2024"),
                    ),
                ),
                (
                    "Review cycle",
                    fact(
                        "hosp.man_review",
                        "frequency",
                        "{v}",
                        "every 2 years",
                        (
                            "The equipment maintenance manual is reviewed {v}.",
                            ("voice", "Clinical Engineering reviews its maintenance manual {v}."),
                        ),
                        ("every 12 months", "every 3 years"),
                    ),
                ),
            ),
            h("1. Purpose and Scope"),
            p(
                "This manual sets out how the Clinical Engineering Department of St Aldric's "
                "Hospital inspects, maintains and repairs medical equipment.",
                fact(
                    "hosp.outpatient",
                    "place",
                    "It covers every powered medical device owned, leased or on loan to the "
                    "hospital at the main campus in Norwick and at the {v} outpatient centre.",
                    "Hollins Lane",
                    (
                        "The maintenance manual also covers devices at the {v} outpatient centre.",
                        (
                            "reorder",
                            "Besides the main campus in Norwick, the manual applies to medical "
                            "devices at the {v} outpatient centre.",
                        ),
                    ),
                    ("Marsh Road", "Eastbury"),
                ),
                fact(
                    "hosp.asset_register",
                    "vendor",
                    "Every device is recorded in the {v} asset register from delivery to "
                    "disposal, together with its full maintenance history.",
                    "Assetica",
                    (
                        "Devices and their maintenance history are tracked in {v}.",
                        (
                            "voice",
                            "Clinical Engineering uses {v} to record every device from "
                            "delivery to disposal.",
                        ),
                    ),
                    ("EquipLog", "MaintainIQ"),
                ),
            ),
            h("1.1 Roles and Responsibilities", 3),
            ul(
                "The Head of Clinical Engineering owns this manual, approves maintenance contracts"
                " and decides when a device class is withdrawn from service.",
                "Biomedical engineering technicians carry out inspections, repairs and acceptance "
                "tests, and record every job against the device's asset number.",
                "Ward managers make devices available for planned maintenance and report faults as"
                " soon as they are noticed.",
                "The Medical Devices Group, chaired by the Medical Director, reviews device "
                "incidents, recalls and replacement priorities.",
            ),
            h("2. Standards and Certification"),
            p(
                fact(
                    "hosp.est_standard",
                    "identifier",
                    "Recurrent electrical safety testing of medical electrical equipment "
                    "follows {v}.",
                    "IEC 62353",
                    (
                        "Electrical safety tests on the hospital's medical equipment are done "
                        "to {v}.",
                        (
                            "voice",
                            "The hospital follows {v} for recurrent electrical safety testing.",
                        ),
                    ),
                    ("IEC 60601-1", "IEC 62304"),
                    bold=True,
                ),
                fact(
                    "hosp.qms_standard",
                    "identifier",
                    "The department's quality management system is certified to {v}.",
                    "ISO 13485",
                    (
                        "Clinical Engineering's quality management system holds {v} certification.",
                        (
                            "voice",
                            "{v} is the standard the department's quality management "
                            "system is certified to.",
                        ),
                    ),
                    ("ISO 9001", "ISO 14971"),
                ),
                fact(
                    "hosp.cert_body",
                    "auditor",
                    "Certification audits are carried out by {v}.",
                    "Lorimer Certification Services",
                    (
                        (
                            "voice",
                            "{v} carries out the certification audits of the "
                            "department's quality system.",
                        ),
                        "The quality system's certification auditor is {v}.",
                    ),
                    ("Halberd Assurance", "Tennant Quality Registrars"),
                ),
                fact(
                    "hosp.surveillance",
                    "frequency",
                    "Surveillance audits take place {v}, with a full recertification audit "
                    "every 3 years.",
                    "every 12 months",
                    (
                        "The department's quality system has a surveillance audit {v}.",
                        (
                            "reorder",
                            "A full recertification audit is held every 3 years, and "
                            "surveillance audits take place {v}.",
                        ),
                    ),
                    ("every 6 months", "quarterly"),
                ),
            ),
            h("3. Preventive Maintenance"),
            p(
                "Each equipment class has a preventive maintenance (PM) interval and an "
                "electrical safety test (EST) interval. Intervals are counted from the date "
                "on which the previous inspection was completed."
            ),
            pm,
            p(
                fact(
                    "hosp.pm_overdue",
                    "duration",
                    "A device that is more than {v} overdue for preventive maintenance is "
                    "withdrawn from use until it has been inspected.",
                    "30 days",
                    (
                        "Any device over {v} late for its preventive maintenance is taken out "
                        "of use until it is inspected.",
                        (
                            "reorder",
                            "Until it has been inspected, a device more than {v} overdue for "
                            "preventive maintenance stays out of use.",
                        ),
                    ),
                    ("14 days", "21 days"),
                ),
                fact(
                    "hosp.signoff",
                    "number",
                    "Maintenance on life-support equipment is checked and signed off by {v} "
                    "qualified technicians.",
                    "two",
                    (
                        "Work on life-support equipment has to be signed off by {v} qualified "
                        "technicians.",
                        (
                            "voice",
                            "{v} qualified technicians check and sign off maintenance "
                            "on life-support equipment.",
                        ),
                    ),
                    ("three", "four"),
                    same=(("number_word", "2"),),
                ),
            ),
            p(
                "Planned maintenance follows the manufacturer's service manual wherever one "
                "exists. Where the manufacturer gives no interval, the Medical Devices Group sets "
                "one from the device's risk class and its fault history. Each completed inspection"
                " is shown on a label on the device with the date and the technician's initials."
            ),
            h("4. Corrective Maintenance"),
            p(
                "Faults are logged with the Clinical Engineering help desk, which assigns a "
                "priority. Response is measured from the time the fault is logged."
            ),
            priority,
            ul(
                must(
                    "hosp.acceptance",
                    "New devices {v} pass an acceptance test by Clinical Engineering before "
                    "their first clinical use.",
                    (
                        "New devices {v} pass Clinical Engineering's acceptance test before "
                        "they are first used on patients.",
                        (
                            "reorder",
                            "Before their first clinical use, new devices {v} pass an "
                            "acceptance test by Clinical Engineering.",
                        ),
                    ),
                    ("do not need to", "are not required to"),
                ),
                must_not(
                    "hosp.connected",
                    "Technicians {v} open or repair a device while it is connected to a patient.",
                    (
                        "Our technicians {v} repair a device that is still connected to a patient.",
                        (
                            "reorder",
                            "While a device is connected to a patient, technicians {v} open or "
                            "repair it.",
                        ),
                    ),
                ),
                fact(
                    "hosp.records",
                    "duration",
                    "Service records are kept for {v} after a device is disposed of.",
                    "10 years",
                    (
                        "Clinical Engineering keeps a device's service records for {v} after "
                        "its disposal.",
                        (
                            "reorder",
                            "After a device is disposed of, its service records are retained "
                            "for {v}.",
                        ),
                    ),
                    ("7 years", "5 years"),
                    bold=True,
                ),
                fact(
                    "hosp.quarantine",
                    "place",
                    "Devices awaiting repair are held in the quarantine bay of the {v} "
                    "workshop and tagged DO NOT USE.",
                    "Carrow Wing",
                    (
                        "Equipment waiting for repair is kept in the quarantine bay of the {v} "
                        "workshop.",
                        (
                            "reorder",
                            "Tagged DO NOT USE, devices awaiting repair wait in the {v} "
                            "workshop's quarantine bay.",
                        ),
                    ),
                    ("Linden Wing", "Abbey Wing"),
                ),
            ),
            h("4.1 Recalls and Field Safety Notices", 3),
            p(
                "Field safety notices from manufacturers and national alerts are logged by "
                "Clinical Engineering on the day they arrive. The Medical Devices Group decides "
                "the action for each notice, and the wards concerned are told which devices are "
                "affected and what to do in the meantime. Devices affected by a recall are located"
                " through the asset register and withdrawn or modified as the notice requires."
            ),
            h("5. Service Contracts"),
            ul(
                fact(
                    "hosp.imaging_vendor",
                    "vendor",
                    "CT and MRI scanners are maintained under a full-service contract with {v}.",
                    "Pellham Medical Systems",
                    (
                        (
                            "voice",
                            "{v} maintains the hospital's CT and MRI scanners under a "
                            "full-service contract.",
                        ),
                        "The hospital's CT and MRI scanners are serviced by {v}.",
                    ),
                    ("Caradon Imaging Services", "Axford Diagnostics"),
                ),
                fact(
                    "hosp.calibration_vendor",
                    "vendor",
                    "The test equipment used for electrical safety testing is calibrated every "
                    "12 months by {v}.",
                    "Vestry Calibration Ltd",
                    (
                        (
                            "voice",
                            "{v} calibrates the electrical safety test equipment every 12 months.",
                        ),
                        "Calibration of Clinical Engineering's safety test equipment is done "
                        "by {v}.",
                    ),
                    ("Kingsmere Metrology", "Orrin Calibration Services"),
                ),
                fact(
                    "hosp.software",
                    "duration",
                    "Manufacturer software updates are installed within {v} of release, after "
                    "Clinical Engineering has tested them on a non-clinical unit.",
                    "14 days",
                    (
                        "Software updates from a manufacturer go onto devices within {v} of "
                        "their release.",
                        (
                            "reorder",
                            "After testing on a non-clinical unit, manufacturer software "
                            "updates are installed within {v} of release.",
                        ),
                    ),
                    ("7 days", "28 days"),
                ),
                fact(
                    "hosp.repair_approval",
                    "money",
                    "Repairs expected to cost more than {v} need the approval of the Head of "
                    "Clinical Engineering before work starts.",
                    "£2,000",
                    (
                        "The Head of Clinical Engineering must approve any repair expected to "
                        "cost over {v} before work begins.",
                        (
                            "reorder",
                            "Before work starts on a repair likely to cost more than {v}, the "
                            "Head of Clinical Engineering has to approve it.",
                        ),
                    ),
                    ("£1,000", "£500"),
                ),
            ),
        ),
    )
    timelines = Table(
        "hosp.tender",
        "Stage",
        (),
        (
            Column(
                "Standard tender",
                (
                    "In a standard tender, the {row} is {v}.",
                    "For a standard tender the hospital allows {v} as the {row}.",
                ),
            ),
            Column(
                "Urgent tender",
                (
                    "In an urgent tender, the {row} is {v}.",
                    "For an urgent tender the hospital allows {v} as the {row}.",
                ),
            ),
        ),
        (
            Row(
                "Answering clarification questions",
                "time to answer a supplier's clarification question",
                ("5 business days", "2 business days"),
            ),
            Row("Bid submission window", "bid submission window", ("30 days", "10 days")),
            Row(
                "Completing the evaluation",
                "time to complete the evaluation",
                ("20 business days", "10 business days"),
            ),
        ),
    )
    procurement = Document(
        "procurement-policy.md",
        "St Aldric's Hospital Procurement Policy",
        (
            meta(
                (
                    "Document ID",
                    fact(
                        "hosp.proc_id",
                        "identifier",
                        "{v}",
                        "PRC-POL-04",
                        (
                            "The hospital's procurement policy is document {v}.",
                            ("voice", "{v} is the reference of the hospital's procurement policy."),
                        ),
                        ("PRC-POL-40", "PRC-PR-04"),
                    ),
                ),
                ("Owner", "Head of Procurement"),
                (
                    "Effective from",
                    fact(
                        "hosp.proc_date",
                        "date",
                        "{v}",
                        "1 April 2025",
                        (
                            "The procurement policy took effect on {v}.",
                            (
                                "voice",
                                "St Aldric's Hospital brought its procurement policy "
                                "into effect on {v}.",
                            ),
                        ),
                        ("1 April 2024", "1 May 2025"),
                    ),
                ),
                (
                    "Review cycle",
                    fact(
                        "hosp.proc_review",
                        "frequency",
                        "{v}",
                        "annually",
                        (
                            "The procurement policy is reviewed {v}.",
                            (
                                "voice",
                                "The Head of Procurement reviews the procurement policy {v}.",
                            ),
                        ),
                        ("every 2 years", "every 6 months"),
                    ),
                ),
            ),
            h("1. Purpose"),
            p(
                "This policy governs how St Aldric's Hospital buys goods, services and works, "
                "so that public money is spent fairly and transparently.",
                fact(
                    "hosp.proc_law",
                    "identifier",
                    "Every procurement is run in line with the {v}.",
                    "Procurement Act 2023",
                    (
                        "The hospital runs its procurements under the {v}.",
                        ("voice", "The {v} governs every procurement the hospital runs."),
                    ),
                    ("Public Contracts Regulations 2015", "Procurement Act 2021"),
                ),
            ),
            h("1.1 Principles", 3),
            p(
                "Staff who buy on the hospital's behalf treat all suppliers fairly, declare any "
                "conflict of interest before a procurement starts and keep a record of every "
                "decision that affects its outcome. Every purchase should give value for money "
                "over the whole life of the goods or service, not only the lowest price."
            ),
            h("2. Approval Thresholds"),
            p("Values are for the whole contract, excluding VAT."),
            ul(
                fact(
                    "hosp.one_quote",
                    "money",
                    "Purchases up to {v} need one written quote and the budget holder's approval.",
                    "£5,000",
                    (
                        "A single written quote, approved by the budget holder, is enough for "
                        "purchases up to {v}.",
                        (
                            "reorder",
                            "With the budget holder's approval, purchases of up to {v} need "
                            "only one written quote.",
                        ),
                    ),
                    ("£10,000", "£7,500"),
                    bold=True,
                ),
                fact(
                    "hosp.quotes",
                    "number",
                    "Purchases between £5,000 and £50,000 need at least {v} written quotes "
                    "and are approved by the Head of Department.",
                    "three",
                    (
                        "For purchases between £5,000 and £50,000 the hospital obtains at least "
                        "{v} written quotes.",
                        (
                            "voice",
                            "The Head of Department approves purchases between £5,000 "
                            "and £50,000, which need at least {v} written quotes.",
                        ),
                    ),
                    ("five", "four"),
                    same=(("number_word", "3"),),
                ),
                fact(
                    "hosp.tender_threshold",
                    "money",
                    "Purchases above {v} must go through a formal tender run by the "
                    "Procurement team.",
                    "£50,000",
                    (
                        "Anything costing more than {v} has to be bought through a formal tender.",
                        (
                            "voice",
                            "The Procurement team runs a formal tender for every "
                            "purchase above {v}.",
                        ),
                    ),
                    ("£25,000", "£30,000"),
                ),
                must_not(
                    "hosp.split",
                    "Splitting an order to keep it below a threshold {v}.",
                    (
                        "Breaking a purchase into smaller orders to stay under an approval "
                        "threshold {v}.",
                        "Dividing an order so that it falls below a threshold {v}.",
                    ),
                    wrong=("is allowed", "is permitted"),
                    value="is prohibited",
                    same=(
                        ("prohibition_synonym", "is not allowed"),
                        ("prohibition_synonym", "is forbidden"),
                    ),
                ),
            ),
            h("3. Tenders"),
            p(
                "The Procurement team publishes each tender on the hospital's supplier portal. "
                "An urgent tender needs the written agreement of the Director of Finance."
            ),
            timelines,
            p(
                fact(
                    "hosp.quality_weight",
                    "percent",
                    "Quality and technical merit carry {v} of the evaluation score, price 30% "
                    "and social value 10%.",
                    "60%",
                    (
                        "In a tender evaluation, quality and technical merit account for {v} "
                        "of the score.",
                        (
                            "reorder",
                            "Price carries 30% and social value 10% of the evaluation score, "
                            "while quality and technical merit carry {v}.",
                        ),
                    ),
                    ("50%", "70%"),
                ),
                fact(
                    "hosp.low_bid",
                    "percent",
                    "A supplier whose bid is more than {v} below the average of the other "
                    "bids is asked to explain its pricing before any award.",
                    "20%",
                    (
                        "Suppliers bidding over {v} below the average of the other bids must "
                        "justify their pricing before an award is made.",
                        (
                            "voice",
                            "The hospital asks a supplier to explain its pricing when "
                            "its bid is more than {v} under the average of the other bids.",
                        ),
                    ),
                    ("10%", "15%"),
                ),
            ),
            p(
                "Tender documents state the evaluation criteria and their weightings before bids "
                "are invited, and they are not changed once the tender is published. Each bid is "
                "scored independently by the evaluation panel, whose scores are then moderated by "
                "the Procurement team."
            ),
            h("4. Suppliers"),
            ul(
                fact(
                    "hosp.eproc",
                    "vendor",
                    "All orders are raised in the {v} e-procurement system; paper orders are "
                    "not accepted.",
                    "ProcurePoint",
                    (
                        "The hospital raises every order in its {v} e-procurement system.",
                        (
                            "voice",
                            "{v} is the e-procurement system in which all orders are raised.",
                        ),
                    ),
                    ("Tendrix", "OrderBridge"),
                ),
                fact(
                    "hosp.consumables",
                    "vendor",
                    "Medical consumables are bought through the framework agreement with {v}.",
                    "Harland Healthcare Supplies",
                    (
                        (
                            "voice",
                            "The hospital buys its medical consumables from {v} under a "
                            "framework agreement.",
                        ),
                        "The framework supplier for medical consumables is {v}.",
                    ),
                    ("Brockley Medical Supply", "Tamsin Clinical"),
                ),
                must(
                    "hosp.due_diligence",
                    "New suppliers {v} complete the hospital's due-diligence questionnaire "
                    "before their first order is placed.",
                    (
                        "Suppliers {v} fill in the hospital's due-diligence questionnaire "
                        "before they receive a first order.",
                        (
                            "reorder",
                            "Before their first order is placed, new suppliers {v} complete "
                            "the due-diligence questionnaire.",
                        ),
                    ),
                    ("do not need to", "are not required to"),
                ),
                fact(
                    "hosp.payment",
                    "duration",
                    "Suppliers are paid within {v} of the hospital receiving a valid invoice.",
                    "30 days",
                    (
                        "The hospital pays a valid supplier invoice within {v} of receiving it.",
                        (
                            "voice",
                            "Payment to suppliers is made within {v} of receipt of a "
                            "valid invoice.",
                        ),
                    ),
                    ("45 days", "60 days"),
                ),
                must_not(
                    "hosp.gifts",
                    "Staff {v} accept gifts or hospitality worth more than £50 from a supplier.",
                    (
                        "Hospital staff {v} take gifts or hospitality from a supplier if they "
                        "are worth over £50.",
                        (
                            "reorder",
                            "Gifts or hospitality from a supplier worth more than £50 are "
                            "something staff {v} accept.",
                        ),
                    ),
                ),
                fact(
                    "hosp.gift_register",
                    "money",
                    "Gifts worth {v} or less are recorded in the gifts and hospitality "
                    "register within 7 days.",
                    "£50",
                    (
                        "Any gift worth up to {v} is entered in the gifts and hospitality "
                        "register within 7 days.",
                        (
                            "voice",
                            "Staff record gifts of {v} or less in the gifts and "
                            "hospitality register within 7 days.",
                        ),
                    ),
                    ("£100", "£75"),
                ),
            ),
            h("4.1 Contract Management", 3),
            p(
                "Every contract awarded by formal tender has a named contract manager, who holds "
                "review meetings with the supplier, tracks performance against the contract's key "
                "performance indicators and records any dispute. Contract variations are agreed in"
                " writing and approved at the same level as the original contract."
            ),
            h("4.2 Exceptions", 3),
            p(
                "A waiver of this policy may be granted by the Director of Finance where only one "
                "supplier can provide the goods or service, for example a proprietary spare part. "
                "Each waiver is recorded with its reason and reported to the Audit Committee."
            ),
            h("5. Audit"),
            p(
                fact(
                    "hosp.internal_audit",
                    "auditor",
                    "Compliance with this policy is audited every year by the hospital's "
                    "internal auditors, {v}.",
                    "Ashby Kerr LLP",
                    (
                        (
                            "voice",
                            "{v}, the hospital's internal auditors, audit compliance "
                            "with the procurement policy every year.",
                        ),
                        "The procurement policy is audited each year by {v}.",
                    ),
                    ("Morrow & Finch LLP", "Pendle Audit Partners"),
                ),
                fact(
                    "hosp.audit_date",
                    "date",
                    "The most recent audit, completed on {v}, found no material exceptions.",
                    "28 November 2024",
                    (
                        "The last procurement audit was completed on {v} and found no "
                        "material exceptions.",
                        (
                            "voice",
                            "No material exceptions were found by the procurement audit "
                            "completed on {v}.",
                        ),
                    ),
                    ("28 October 2024", "18 November 2024"),
                ),
            ),
        ),
    )
    sterile = Document(
        "sterilisation-and-decontamination-procedure.md",
        "Sterile Services Decontamination Procedure",
        (
            meta(
                (
                    "Document ID",
                    fact(
                        "hosp.ssd_id",
                        "identifier",
                        "{v}",
                        "SSD-PR-07",
                        (
                            "The decontamination procedure of Sterile Services is document {v}.",
                            (
                                "voice",
                                "{v} is the reference of the sterile services "
                                "decontamination procedure.",
                            ),
                        ),
                        ("SSD-PR-02", "SSD-PR-17"),
                    ),
                ),
                (
                    "Approved",
                    fact(
                        "hosp.ssd_date",
                        "date",
                        "{v}",
                        "9 June 2025",
                        (
                            "The decontamination procedure was approved on {v}.",
                            (
                                "voice",
                                "Sterile Services had its decontamination procedure "
                                "approved on {v}.",
                            ),
                        ),
                        ("9 July 2025", "19 June 2025"),
                    ),
                ),
                (
                    "Review cycle",
                    fact(
                        "hosp.ssd_review",
                        "frequency",
                        "{v}",
                        "every 3 years",
                        (
                            "The decontamination procedure is reviewed {v}.",
                            (
                                "voice",
                                "Sterile Services reviews its decontamination procedure {v}.",
                            ),
                        ),
                        ("every 2 years", "every 5 years"),
                    ),
                ),
            ),
            h("1. Scope"),
            p(
                fact(
                    "hosp.ssd_place",
                    "place",
                    "This procedure applies to all reusable surgical instruments processed "
                    "by the Sterile Services Department (SSD) on the lower ground floor of the "
                    "{v}.",
                    "Fenwick Building",
                    (
                        "The Sterile Services Department is on the lower ground floor of the {v}.",
                        (
                            "voice",
                            "Reusable surgical instruments are processed by Sterile "
                            "Services on the lower ground floor of the {v}.",
                        ),
                    ),
                    ("Harcourt Building", "Mercer Building"),
                ),
                fact(
                    "hosp.htm",
                    "identifier",
                    "Decontamination follows the national guidance in {v}.",
                    "HTM 01-01",
                    (
                        "Sterile Services decontaminates instruments according to {v}.",
                        ("voice", "The national guidance that decontamination follows is {v}."),
                    ),
                    ("HTM 02-01", "HTM 07-01"),
                ),
            ),
            h("1.1 Responsibilities", 3),
            ul(
                "The Sterile Services Manager runs the department day to day and keeps the records"
                " this procedure requires.",
                "The Decontamination Lead, a senior nurse, advises on infection prevention and "
                "reviews every non-conforming load.",
                "Theatre and ward staff return used instruments to Sterile Services in closed, "
                "labelled containers, kept moist until they are processed.",
            ),
            h("2. Sterilisation"),
            ul(
                fact(
                    "hosp.temp",
                    "number",
                    "Porous loads are sterilised in steam at {v}.",
                    "134 °C",
                    (
                        "Steam sterilisation of porous loads is done at {v}.",
                        ("voice", "The steam sterilisers process porous loads at {v}."),
                    ),
                    ("121 °C", "138 °C"),
                ),
                fact(
                    "hosp.holding",
                    "duration",
                    "The holding time at sterilising temperature is never shorter than {v}.",
                    "3 minutes",
                    (
                        "Loads are held at sterilising temperature for at least {v}.",
                        (
                            "voice",
                            "Sterile Services holds every load at sterilising "
                            "temperature for no less than {v}.",
                        ),
                    ),
                    ("5 minutes", "4 minutes"),
                ),
                fact(
                    "hosp.bowie_dick",
                    "frequency",
                    "A Bowie-Dick test is run on each steriliser {v} before the first load.",
                    "daily",
                    (
                        "Each steriliser gets a Bowie-Dick test {v} before its first load.",
                        (
                            "reorder",
                            "Before the first load, a Bowie-Dick test is run {v} on every "
                            "steriliser.",
                        ),
                    ),
                    ("weekly", "twice a week"),
                ),
                fact(
                    "hosp.revalidation",
                    "frequency",
                    "Each steriliser is revalidated {v} by the Authorised Person "
                    "(Decontamination).",
                    "every 12 months",
                    (
                        "Sterilisers are revalidated {v}.",
                        (
                            "voice",
                            "The Authorised Person (Decontamination) revalidates each "
                            "steriliser {v}.",
                        ),
                    ),
                    ("every 6 months", "every 2 years"),
                ),
                fact(
                    "hosp.ap",
                    "auditor",
                    "The Authorised Person (Decontamination) is provided under contract by {v}.",
                    "Kestrel Validation Services",
                    (
                        (
                            "voice",
                            "{v} provides the hospital's Authorised Person "
                            "(Decontamination) under contract.",
                        ),
                        "The hospital's Authorised Person (Decontamination) comes from {v}.",
                    ),
                    ("Brightwell Assurance", "Tarrant Engineering Inspection"),
                ),
                fact(
                    "hosp.washer",
                    "range",
                    "In the thermal disinfection stage, washer-disinfector water is held at "
                    "{v} for at least 1 minute.",
                    "90-93 °C",
                    (
                        "Washer-disinfectors hold their water at {v} during thermal disinfection.",
                        (
                            "reorder",
                            "For at least 1 minute of thermal disinfection, the "
                            "washer-disinfector water is kept at {v}.",
                        ),
                    ),
                    ("80-85 °C", "85-90 °C"),
                ),
            ),
            p(
                "A load that fails any test is not released. It is quarantined, recorded as a non-"
                "conforming load and processed again once the cause has been found and corrected, "
                "and the steriliser stays out of use until the Authorised Person (Decontamination)"
                " approves its return."
            ),
            p(
                "Cycle printouts, test results and maintenance records for each steriliser and "
                "washer-disinfector are kept with the tray tracking data, so that an instrument "
                "set can be followed from its use on a patient back through every cycle it went "
                "through."
            ),
            h("3. Storage and Traceability"),
            ul(
                fact(
                    "hosp.store_temp",
                    "range",
                    "The sterile store is kept at {v}.",
                    "15-25 °C",
                    (
                        "Temperature in the sterile store is held at {v}.",
                        ("voice", "Sterile Services keeps its sterile store at {v}."),
                    ),
                    ("18-22 °C", "20-30 °C"),
                ),
                fact(
                    "hosp.humidity",
                    "percent",
                    "Relative humidity in the sterile store must stay below {v}.",
                    "70%",
                    (
                        "The sterile store's relative humidity is kept under {v}.",
                        (
                            "voice",
                            "Sterile Services keeps relative humidity in the sterile "
                            "store below {v}.",
                        ),
                    ),
                    ("60%", "50%"),
                ),
                fact(
                    "hosp.shelf_life",
                    "duration",
                    "Wrapped instrument sets are given a shelf life of {v} from the date of "
                    "sterilisation.",
                    "90 days",
                    (
                        "A wrapped instrument set can be used for up to {v} after it was "
                        "sterilised.",
                        (
                            "voice",
                            "Sterile Services gives wrapped instrument sets a shelf "
                            "life of {v} from sterilisation.",
                        ),
                    ),
                    ("180 days", "30 days"),
                ),
                must_not(
                    "hosp.single_use",
                    "Single-use devices {v} reprocessed.",
                    (
                        "Devices marked for single use {v} reprocessed by Sterile Services.",
                        "In Sterile Services, single-use devices {v} reprocessed.",
                    ),
                    wrong=("may be", "can be"),
                    value="must never be",
                    same=(
                        ("prohibition_synonym", "may never be"),
                        ("prohibition_synonym", "are not to be"),
                    ),
                ),
                must(
                    "hosp.barcode",
                    "Instrument trays {v} carry a barcode label, so that each tray can be "
                    "traced to the patient it was used on.",
                    (
                        "All instrument trays {v} have a barcode label so that they can be "
                        "traced to their patients.",
                        (
                            "reorder",
                            "So that each can be traced to its patient, instrument trays {v} "
                            "carry a barcode label.",
                        ),
                    ),
                    ("do not have to", "are not required to"),
                ),
                fact(
                    "hosp.tracking",
                    "vendor",
                    "Tray scans are recorded in the {v} tracking system.",
                    "TraceSure",
                    (
                        "Sterile Services records tray scans in {v}.",
                        ("voice", "{v} is the tracking system that records instrument tray scans."),
                    ),
                    ("SteriTrack", "InstruLog"),
                ),
            ),
        ),
    )
    return Vault("st-aldric-hospital", (manual, procurement, sterile))


# ----------------------------------------------------------------------------- vault 2


def _freight() -> Vault:
    """Ostrander Freight B.V.: terms of carriage, carrier SLA, dangerous goods, warehouse
    (EUR)."""
    terms = Document(
        "customer-terms-of-carriage.md",
        "Ostrander Freight Customer Terms of Carriage",
        (
            meta(
                (
                    "Reference",
                    fact(
                        "frt.terms_id",
                        "identifier",
                        "{v}",
                        "OF-TC-2026",
                        (
                            "Ostrander Freight's customer terms of carriage have the reference "
                            "{v}.",
                            ("voice", "{v} is the reference of the customer terms of carriage."),
                        ),
                        ("OF-TC-2025", "OF-TC-2062"),
                    ),
                ),
                (
                    "Effective for consignments collected from",
                    fact(
                        "frt.terms_date",
                        "date",
                        "{v}",
                        "1 January 2026",
                        (
                            "The terms of carriage apply to consignments collected from {v}.",
                            (
                                "voice",
                                "Ostrander Freight applies these terms of carriage to "
                                "consignments it collects from {v}.",
                            ),
                        ),
                        ("1 January 2025", "1 February 2026"),
                    ),
                ),
            ),
            h("1. Scope"),
            p(
                "These terms apply to every parcel and pallet consignment that Ostrander "
                "Freight B.V. collects in the Netherlands, Belgium and Germany.",
                fact(
                    "frt.cmr",
                    "identifier",
                    "Where a consignment travels by road between countries, the {v} also applies.",
                    "CMR Convention",
                    (
                        "International road consignments are also subject to the {v}.",
                        (
                            "voice",
                            "The {v} also governs a consignment that crosses a border by road.",
                        ),
                    ),
                    ("Montreal Convention", "Warsaw Convention"),
                ),
            ),
            h("1.1 Definitions", 3),
            ul(
                "Consignment: one or more packages collected from one sender for one receiver at "
                "the same time.",
                "Business day: Monday to Friday, excluding public holidays in the country of "
                "delivery.",
                "Gross weight: the weight of the goods including all packaging, as recorded by our"
                " scales at the hub.",
            ),
            h("2. Collection and Transit Times"),
            ul(
                fact(
                    "frt.cutoff",
                    "number",
                    "Collection requests made before {v} on a business day are collected the "
                    "same day.",
                    "14:00",
                    (
                        "A collection booked before {v} on a business day is picked up the "
                        "same day.",
                        (
                            "voice",
                            "Ostrander Freight collects on the same day when the request "
                            "comes in before {v} on a business day.",
                        ),
                    ),
                    ("16:00", "15:00"),
                ),
                fact(
                    "frt.nl_parcels",
                    "range",
                    "Standard parcels within the Netherlands are delivered in {v} after "
                    "collection.",
                    "1-2 business days",
                    (
                        "Delivery of a standard parcel inside the Netherlands takes {v} from "
                        "collection.",
                        (
                            "voice",
                            "Ostrander Freight delivers standard parcels within the "
                            "Netherlands in {v} after collection.",
                        ),
                    ),
                    ("2-3 business days", "3-4 business days"),
                    bold=True,
                ),
                fact(
                    "frt.pallets",
                    "range",
                    "Pallets to Belgium and Germany are delivered in {v}.",
                    "2-4 business days",
                    (
                        "Pallet deliveries to Belgium and Germany take {v}.",
                        (
                            "voice",
                            "Ostrander Freight delivers pallets to Belgium and Germany in {v}.",
                        ),
                    ),
                    ("3-5 business days", "1-2 business days"),
                ),
            ),
            p(
                "Transit times are targets, not guaranteed delivery times, unless a guaranteed "
                "service has been booked. Delays caused by customs checks, severe weather or an "
                "incorrect address extend the transit time accordingly."
            ),
            h("3. Charges"),
            p(
                "Rates are quoted per consignment and depend on weight, volume and destination.",
                fact(
                    "frt.fuel_review",
                    "frequency",
                    "A fuel surcharge is added to the base rate and is reviewed {v}.",
                    "monthly",
                    (
                        "The fuel surcharge on top of the base rate is reviewed {v}.",
                        ("voice", "Ostrander Freight reviews its fuel surcharge {v}."),
                    ),
                    ("quarterly", "weekly"),
                ),
                fact(
                    "frt.fuel_rate",
                    "percent",
                    "The fuel surcharge currently stands at {v} of the base rate.",
                    "9.5%",
                    (
                        "At present the fuel surcharge is {v} of the base rate.",
                        (
                            "voice",
                            "Ostrander Freight currently adds a fuel surcharge of {v} "
                            "to the base rate.",
                        ),
                    ),
                    ("12.5%", "5.9%"),
                ),
            ),
            ul(
                fact(
                    "frt.third_attempt",
                    "money",
                    "A third delivery attempt is charged at {v} per consignment.",
                    "€15",
                    (
                        "Customers pay {v} per consignment for a third delivery attempt.",
                        (
                            "voice",
                            "Ostrander Freight charges {v} per consignment for a third "
                            "delivery attempt.",
                        ),
                    ),
                    ("€25", "€10"),
                ),
                fact(
                    "frt.storage",
                    "money",
                    "Goods that cannot be delivered are held free of charge for 5 business "
                    "days and then charged at {v} per pallet per day.",
                    "€8",
                    (
                        "After 5 free business days, undeliverable goods are stored at {v} per "
                        "pallet per day.",
                        (
                            "reorder",
                            "Storage of undeliverable goods costs {v} per pallet per day once "
                            "the first 5 business days, which are free, have passed.",
                        ),
                    ),
                    ("€12", "€6"),
                ),
            ),
            p(
                "Invoices are payable in full without set-off. Disputed items are raised with our "
                "customer service team, and the undisputed part of the invoice is paid on time."
            ),
            h("4. Liability and Claims"),
            ul(
                fact(
                    "frt.liability",
                    "money",
                    "Our liability for loss of or damage to goods is limited to {v} per "
                    "kilogram of gross weight, unless a higher value was declared.",
                    "€20",
                    (
                        "Unless a higher value is declared, Ostrander Freight's liability for "
                        "lost or damaged goods is capped at {v} per kilogram of gross weight.",
                        (
                            "voice",
                            "Ostrander Freight limits its liability for loss or damage "
                            "to {v} per kilogram of gross weight.",
                        ),
                    ),
                    ("€40", "€10"),
                    bold=True,
                ),
                fact(
                    "frt.damage_notice",
                    "duration",
                    "Visible damage is noted on the delivery receipt and reported to us within "
                    "{v} of delivery.",
                    "7 days",
                    (
                        "Customers have {v} from delivery to report visible damage.",
                        (
                            "voice",
                            "Visible damage must be reported to Ostrander Freight within "
                            "{v} of delivery.",
                        ),
                    ),
                    ("14 days", "3 days"),
                ),
                fact(
                    "frt.loss_claim",
                    "duration",
                    "Claims for lost consignments are made within {v} of the planned delivery "
                    "date.",
                    "21 days",
                    (
                        "A claim for a lost consignment has to be made within {v} of the "
                        "planned delivery date.",
                        (
                            "voice",
                            "Customers claim for a lost consignment within {v} of its "
                            "planned delivery date.",
                        ),
                    ),
                    ("30 days", "28 days"),
                ),
                fact(
                    "frt.insurer",
                    "vendor",
                    "Optional cargo insurance is underwritten by {v}.",
                    "Norrland Marine Insurance",
                    (
                        ("voice", "{v} underwrites the optional cargo insurance."),
                        "The optional cargo insurance Ostrander Freight offers is underwritten "
                        "by {v}.",
                    ),
                    ("Halvorsen Cargo Underwriters", "Baltic Mutual"),
                ),
                fact(
                    "frt.customs",
                    "vendor",
                    "Customs clearance for consignments leaving the EU is handled by our "
                    "partner {v}.",
                    "Vandermeer Customs Brokers",
                    (
                        ("voice", "{v} handles customs clearance for consignments leaving the EU."),
                        "Ostrander Freight's customs partner for exports from the EU is {v}.",
                    ),
                    ("Hollis Trade Services", "Dekker Douane"),
                ),
                must_not(
                    "frt.valuables",
                    "Customers {v} send cash, precious metals or jewellery with Ostrander Freight.",
                    (
                        "Cash, precious metals and jewellery are items customers {v} ship with "
                        "Ostrander Freight.",
                        "Customers {v} include cash, precious metals or jewellery in a "
                        "consignment.",
                    ),
                ),
                must(
                    "frt.declare",
                    "Customers {v} declare the value of any consignment worth more than €5,000.",
                    (
                        "For a consignment worth over €5,000, customers {v} declare its value.",
                        "Customers {v} state the value of consignments worth more than €5,000.",
                    ),
                    ("do not need to", "are not required to"),
                ),
            ),
        ),
    )
    service = Table(
        "frt.service",
        "Service",
        (),
        (
            Column(
                "On-time delivery target",
                (
                    "The on-time delivery target for the {row} service is {v}.",
                    "For the {row} service, carriers have an on-time delivery target of {v}.",
                ),
            ),
            Column(
                "Maximum damage rate",
                (
                    "The maximum damage rate for the {row} service is {v}.",
                    "The {row} service has a damage-rate ceiling of {v}.",
                ),
            ),
        ),
        (
            Row("Next-day parcel", "next-day parcel", ("98.5%", "0.3%")),
            Row("Two-day parcel", "two-day parcel", ("97%", "0.5%")),
            Row("Pallet network", "pallet network", ("95%", "0.8%")),
            Row("Temperature-controlled", "temperature-controlled", ("99%", "0.2%")),
        ),
    )
    incidents = Table(
        "frt.incidents",
        "Incident",
        (),
        (
            Column(
                "Carrier notifies Ostrander within",
                (
                    "For a {row}, the carrier has to notify Ostrander within {v}.",
                    "Carriers report a {row} to Ostrander Freight within {v}.",
                ),
            ),
            Column(
                "Resolved within",
                (
                    "A {row} must be resolved within {v}.",
                    "The resolution time for a {row} is {v}.",
                ),
            ),
        ),
        (
            Row("Vehicle breakdown", "vehicle breakdown", ("30 minutes", "4 hours")),
            Row("Temperature excursion", "temperature excursion", ("15 minutes", "2 hours")),
            Row("Missed collection", "missed collection", ("1 hour", "24 hours")),
            Row("Lost consignment", "lost consignment", ("24 hours", "10 business days")),
        ),
    )
    sla = Document(
        "carrier-service-level-agreement.md",
        "Ostrander Freight Carrier Service Level Agreement",
        (
            meta(
                (
                    "Agreement ID",
                    fact(
                        "frt.sla_id",
                        "identifier",
                        "{v}",
                        "OF-SLA-12",
                        (
                            "The carrier service level agreement is document {v}.",
                            (
                                "voice",
                                "{v} identifies Ostrander Freight's carrier service "
                                "level agreement.",
                            ),
                        ),
                        ("OF-SLA-21", "OF-SLA-10"),
                    ),
                ),
                (
                    "Term ends",
                    fact(
                        "frt.sla_end",
                        "date",
                        "{v}",
                        "31 December 2027",
                        (
                            "The carrier service level agreement runs until {v}.",
                            (
                                "voice",
                                "Ostrander Freight's agreement with its carriers ends on {v}.",
                            ),
                        ),
                        ("31 December 2026", "30 June 2027"),
                    ),
                ),
            ),
            h("1. Parties and Network"),
            p(
                "This agreement sets the service levels that subcontracted carriers meet on "
                "Ostrander Freight's behalf.",
                fact(
                    "frt.linehaul",
                    "vendor",
                    "Line-haul between the Venlo hub and the port of Antwerp is operated by {v}.",
                    "Hemmes Transport",
                    (
                        (
                            "voice",
                            "{v} operates the line-haul between the Venlo hub and the "
                            "port of Antwerp.",
                        ),
                        "The carrier for line-haul from the Venlo hub to the port of Antwerp "
                        "is {v}.",
                    ),
                    ("Van Dijk Logistics", "Roelofs Trucking"),
                ),
            ),
            p(
                "Carriers receive consignments at Ostrander Freight hubs and deliver them to the "
                "final receiver, or to a partner depot where this agreement says so. Each carrier "
                "sends its delivery scans to Ostrander Freight's systems in real time."
            ),
            h("2. Service Levels"),
            p("Targets are measured per calendar month for each service."),
            service,
            ul(
                fact(
                    "frt.credit",
                    "percent",
                    "A carrier that misses its on-time target in a month gives a service "
                    "credit of {v} of that month's invoice.",
                    "5%",
                    (
                        "Missing the on-time target in a month costs the carrier a service "
                        "credit of {v} of that month's invoice.",
                        (
                            "voice",
                            "Ostrander Freight receives a service credit of {v} of the "
                            "monthly invoice from a carrier that misses its on-time target.",
                        ),
                    ),
                    ("10%", "2%"),
                ),
                fact(
                    "frt.credit_cap",
                    "percent",
                    "Service credits are capped at {v} of the monthly invoice.",
                    "15%",
                    (
                        "The service credits a carrier gives are limited to {v} of its monthly "
                        "invoice.",
                        (
                            "voice",
                            "The agreement caps service credits at {v} of the monthly invoice.",
                        ),
                    ),
                    ("25%", "10%"),
                ),
                fact(
                    "frt.review",
                    "frequency",
                    "Carrier performance is reviewed {v} at a business review with Ostrander "
                    "Freight's network manager.",
                    "quarterly",
                    (
                        "Ostrander Freight's network manager reviews each carrier's "
                        "performance {v}.",
                        (
                            "reorder",
                            "At a business review held {v}, the network manager goes through "
                            "carrier performance.",
                        ),
                    ),
                    ("monthly", "twice a year"),
                ),
            ),
            h("3. Incident Response"),
            incidents,
            ul(
                must(
                    "frt.pod",
                    "Carriers {v} provide proof of delivery with a photo and GPS position for "
                    "every parcel.",
                    (
                        "For every parcel, carriers {v} supply proof of delivery including a "
                        "photo and a GPS position.",
                        "Carriers {v} give a photo and GPS position as proof of delivery for "
                        "each parcel.",
                    ),
                    ("do not need to", "are not required to"),
                ),
                must_not(
                    "frt.subcontract",
                    "Carriers {v} subcontract Ostrander consignments to another carrier "
                    "without written consent.",
                    (
                        "Without written consent, carriers {v} pass Ostrander consignments on "
                        "to another carrier.",
                        "Carriers {v} let another carrier handle Ostrander consignments "
                        "without written consent.",
                    ),
                    wrong=("may", "are free to"),
                ),
            ),
            p(
                "Incidents are reported through the carrier portal and by telephone to the "
                "Ostrander Freight control tower, which is staffed around the clock. The carrier "
                "keeps the control tower informed until the incident is closed."
            ),
            h("3.1 Termination", 3),
            p(
                "Either party may end this agreement with written notice. Ostrander Freight may "
                "end it with immediate effect if a carrier repeatedly misses its service levels, "
                "breaches the security requirements or loses a licence it needs."
            ),
            h("4. Audits"),
            p(
                fact(
                    "frt.audit_cycle",
                    "frequency",
                    "Each carrier is audited {v}.",
                    "every 2 years",
                    (
                        "Carriers are subject to an audit {v}.",
                        ("voice", "Ostrander Freight audits each of its carriers {v}."),
                    ),
                    ("every year", "every 3 years"),
                ),
                fact(
                    "frt.auditor",
                    "auditor",
                    "Carrier security audits are carried out by {v}.",
                    "Lindqvist Audit Partners",
                    (
                        ("voice", "{v} carries out the security audits of Ostrander's carriers."),
                        "The security audits of carriers are done by {v}.",
                    ),
                    ("Corvane Assurance", "Brandt & Olsen Auditors"),
                ),
                fact(
                    "frt.tapa",
                    "identifier",
                    "Carriers are audited against the {v} security standard for trucking.",
                    "TAPA TSR",
                    (
                        "The security standard carriers are audited against is {v}.",
                        (
                            "voice",
                            "Auditors check carriers against the {v} trucking security standard.",
                        ),
                    ),
                    ("TAPA FSR", "ISO 28000"),
                ),
            ),
        ),
    )
    dangerous = Document(
        "dangerous-goods-handling-standard.md",
        "Dangerous Goods Handling Standard",
        (
            meta(
                (
                    "Standard ID",
                    fact(
                        "frt.dg_id",
                        "identifier",
                        "{v}",
                        "OF-DG-03",
                        (
                            "The dangerous goods handling standard is document {v}.",
                            (
                                "voice",
                                "{v} is the ID of Ostrander Freight's dangerous goods "
                                "handling standard.",
                            ),
                        ),
                        ("OF-DG-30", "OF-HS-03"),
                    ),
                ),
                (
                    "Approved",
                    fact(
                        "frt.dg_date",
                        "date",
                        "{v}",
                        "14 October 2025",
                        (
                            "The dangerous goods handling standard was approved on {v}.",
                            (
                                "voice",
                                "Ostrander Freight approved its dangerous goods "
                                "handling standard on {v}.",
                            ),
                        ),
                        ("14 November 2025", "4 October 2025"),
                    ),
                ),
            ),
            h("1. Regulations and Adviser"),
            p(
                fact(
                    "frt.adr",
                    "identifier",
                    "Road transport of dangerous goods follows {v}.",
                    "ADR 2025",
                    (
                        "Dangerous goods travel by road under {v}.",
                        (
                            "voice",
                            "Ostrander Freight applies {v} to dangerous goods it carries by road.",
                        ),
                    ),
                    ("ADR 2023", "RID 2025"),
                ),
                fact(
                    "frt.dgsa",
                    "auditor",
                    "The Dangerous Goods Safety Adviser (DGSA), who audits every depot once a "
                    "year, is provided by {v}.",
                    "Eskerfield Safety Consulting",
                    (
                        (
                            "voice",
                            "{v} provides the Dangerous Goods Safety Adviser who audits "
                            "each depot once a year.",
                        ),
                        "Ostrander Freight's Dangerous Goods Safety Adviser comes from {v}.",
                    ),
                    ("Marlin Hazmat Advisers", "Thorne Compliance"),
                ),
            ),
            p(
                "The DGSA reports to the management board each year on how dangerous goods were "
                "handled, including any incidents, and recommends improvements."
            ),
            h("2. Training"),
            ul(
                fact(
                    "frt.dg_training",
                    "frequency",
                    "Staff who load, sort or drive dangerous goods complete refresher training "
                    "{v}.",
                    "every 24 months",
                    (
                        "Refresher dangerous goods training is completed {v} by staff who "
                        "load, sort or drive dangerous goods.",
                        (
                            "voice",
                            "Drivers and loaders of dangerous goods take refresher training {v}.",
                        ),
                    ),
                    ("every 36 months", "every 12 months"),
                ),
                fact(
                    "frt.responders",
                    "number",
                    "Each depot has at least {v} staff trained as dangerous goods first "
                    "responders on every shift.",
                    "two",
                    (
                        "On every shift, at least {v} staff at each depot are trained "
                        "dangerous goods first responders.",
                        (
                            "voice",
                            "Every depot keeps at least {v} trained dangerous goods "
                            "first responders on each shift.",
                        ),
                    ),
                    ("three", "four"),
                    same=(("number_word", "2"),),
                ),
            ),
            p(
                "Training records, with the date and content of each course, are kept by the HR "
                "team for as long as the employee works for Ostrander Freight and are shown to "
                "inspectors on request."
            ),
            h("2.1 Emergency Response", 3),
            p(
                "Every vehicle carrying dangerous goods carries the instructions in writing for "
                "its load and the equipment they call for. In an emergency the driver stops the "
                "vehicle safely, raises the alarm, keeps people away and follows the instructions "
                "in writing until the emergency services arrive."
            ),
            h("3. Acceptance and Handling"),
            ul(
                fact(
                    "frt.un_number",
                    "identifier",
                    "Lithium-ion batteries shipped on their own are carried as {v} and marked "
                    "with the lithium battery mark.",
                    "UN 3480",
                    (
                        "Stand-alone lithium-ion batteries travel as {v}.",
                        (
                            "voice",
                            "Ostrander Freight carries lithium-ion batteries shipped "
                            "on their own as {v}.",
                        ),
                    ),
                    ("UN 3481", "UN 3090"),
                ),
                must_not(
                    "frt.damaged_batteries",
                    "Damaged or defective lithium batteries {v} accepted for carriage.",
                    (
                        "Damaged or defective lithium batteries {v} accepted by Ostrander "
                        "Freight for transport.",
                        "For carriage, defective or damaged lithium batteries {v} accepted.",
                    ),
                    wrong=("are", "can be"),
                    value="are never",
                    same=(
                        ("prohibition_synonym", "are not"),
                        ("prohibition_synonym", "cannot be"),
                    ),
                ),
                fact(
                    "frt.points",
                    "number",
                    "A vehicle carrying more than {v} points of dangerous goods under ADR "
                    "1.1.3.6 displays orange plates.",
                    "1,000",
                    (
                        "Orange plates are shown on any vehicle carrying over {v} points of "
                        "dangerous goods under ADR 1.1.3.6.",
                        (
                            "voice",
                            "Drivers display orange plates when their vehicle carries "
                            "more than {v} ADR 1.1.3.6 points of dangerous goods.",
                        ),
                    ),
                    ("500", "750"),
                    same=(("number_word", "one thousand"),),
                ),
                fact(
                    "frt.smoking_distance",
                    "number",
                    "Smoking is prohibited within {v} of a vehicle being loaded with "
                    "dangerous goods.",
                    "10 metres",
                    (
                        "No one may smoke within {v} of a vehicle that is being loaded with "
                        "dangerous goods.",
                        (
                            "reorder",
                            "Within {v} of a vehicle being loaded with dangerous goods, "
                            "smoking is prohibited.",
                        ),
                    ),
                    ("25 metres", "15 metres"),
                ),
                must_not(
                    "frt.flames",
                    "Open flames in the dangerous goods bay {v}.",
                    (
                        "In the dangerous goods bay, open flames {v}.",
                        "The use of open flames in the dangerous goods bay {v}.",
                    ),
                    wrong=("are allowed", "are permitted"),
                    value="are prohibited",
                    same=(
                        ("prohibition_synonym", "are forbidden"),
                        ("prohibition_synonym", "are not allowed"),
                    ),
                ),
                fact(
                    "frt.dg_bay",
                    "place",
                    "Dangerous goods awaiting collection are kept in the fenced bay at the {v} "
                    "hub.",
                    "Venlo",
                    (
                        "Dangerous goods waiting to be collected are stored in the fenced bay "
                        "of the {v} hub.",
                        (
                            "voice",
                            "Ostrander Freight keeps dangerous goods awaiting collection "
                            "in a fenced bay at its {v} hub.",
                        ),
                    ),
                    ("Tilburg", "Eindhoven"),
                ),
                fact(
                    "frt.spill_report",
                    "duration",
                    "Any leak or spill involving dangerous goods is reported to the DGSA "
                    "within {v}.",
                    "24 hours",
                    (
                        "A dangerous goods leak or spill has to be reported to the DGSA within "
                        "{v}.",
                        (
                            "voice",
                            "Staff report any dangerous goods leak or spill to the DGSA "
                            "within {v}.",
                        ),
                    ),
                    ("48 hours", "72 hours"),
                ),
                fact(
                    "frt.spill_kits",
                    "frequency",
                    "Spill kits at every depot are checked {v}.",
                    "weekly",
                    (
                        "Every depot checks its spill kits {v}.",
                        ("voice", "Each depot's spill kits get checked {v}."),
                    ),
                    ("monthly", "every two weeks"),
                ),
                fact(
                    "frt.dg_docs",
                    "duration",
                    "Dangerous goods transport documents are kept for {v} after the journey.",
                    "3 months",
                    (
                        "Transport documents for dangerous goods are retained for {v} after "
                        "the journey ends.",
                        (
                            "voice",
                            "Ostrander Freight keeps dangerous goods transport documents "
                            "for {v} after each journey.",
                        ),
                    ),
                    ("12 months", "6 months"),
                ),
            ),
        ),
    )
    warehouse = Document(
        "warehouse-operations-standard.md",
        "Warehouse Operations Standard",
        (
            p(
                "This standard sets out how goods are received, stored and dispatched in Ostrander"
                " Freight's warehouses, and the safety rules for everyone on the warehouse floor."
            ),
            h("1. Sites and Systems", 2),
            p(
                "Ostrander Freight runs its cross-dock hub in Venlo and a returns centre.",
                fact(
                    "frt.returns",
                    "place",
                    "Returned goods are processed at the returns centre in {v}.",
                    "Helmond",
                    (
                        "Ostrander Freight's returns centre, where returned goods are "
                        "processed, is in {v}.",
                        ("voice", "The returns centre in {v} processes returned goods."),
                    ),
                    ("Nijmegen", "Breda"),
                ),
                fact(
                    "frt.wms",
                    "vendor",
                    "Stock is managed in the {v} warehouse management system.",
                    "Vantis WMS",
                    (
                        "Ostrander Freight manages its stock in {v}.",
                        ("voice", "The warehouse management system used for stock is {v}."),
                    ),
                    ("Stockwise", "LogiCore WMS"),
                ),
            ),
            h("2. Storage Conditions"),
            ul(
                fact(
                    "frt.ambient",
                    "range",
                    "The ambient zone is kept at {v}.",
                    "15-25 °C",
                    (
                        "Temperature in the ambient zone is held at {v}.",
                        ("voice", "Ostrander Freight keeps its ambient zone at {v}."),
                    ),
                    ("18-24 °C", "20-30 °C"),
                ),
                fact(
                    "frt.chilled",
                    "range",
                    "The chilled zone is kept at {v}, and its temperature is logged every 10 "
                    "minutes.",
                    "2-8 °C",
                    (
                        "Goods in the chilled zone are stored at {v}.",
                        (
                            "reorder",
                            "With its temperature logged every 10 minutes, the chilled zone "
                            "is held at {v}.",
                        ),
                    ),
                    ("0-4 °C", "4-10 °C"),
                    bold=True,
                ),
                fact(
                    "frt.pallet_weight",
                    "number",
                    "The maximum weight of a pallet stored in the racking is {v}.",
                    "1,000 kg",
                    (
                        "A pallet in the racking may weigh at most {v}.",
                        ("voice", "The racking takes pallets of up to {v}."),
                    ),
                    ("1,200 kg", "800 kg"),
                ),
            ),
            p(
                "Goods with a best-before or expiry date are picked first-expired, first-out. "
                "Damaged stock is moved to a separate location and reported to the customer."
            ),
            h("3. Inventory"),
            ul(
                fact(
                    "frt.accuracy",
                    "percent",
                    "Inventory accuracy, measured by cycle counts, is at least {v}.",
                    "99.5%",
                    (
                        "Cycle counts must show an inventory accuracy of at least {v}.",
                        (
                            "voice",
                            "The warehouse keeps inventory accuracy at {v} or better, "
                            "as measured by cycle counts.",
                        ),
                    ),
                    ("99.9%", "99.8%"),
                ),
                fact(
                    "frt.putaway",
                    "duration",
                    "Goods received are put away within {v} of unloading.",
                    "4 hours",
                    (
                        "Received goods go into their storage locations within {v} of being "
                        "unloaded.",
                        (
                            "voice",
                            "Warehouse staff put received goods away within {v} of unloading.",
                        ),
                    ),
                    ("8 hours", "2 hours"),
                ),
            ),
            h("3.1 Dispatch", 3),
            p(
                "Outbound consignments are loaded in route order. The driver and a warehouse "
                "supervisor check the seal number of each trailer against the loading list before "
                "it leaves the dock."
            ),
            h("4. Safety"),
            ul(
                fact(
                    "frt.racking",
                    "frequency",
                    "Racking is inspected {v} by an independent inspector.",
                    "every 12 months",
                    (
                        "An independent inspector checks the racking {v}.",
                        ("voice", "The warehouse has its racking inspected independently {v}."),
                    ),
                    ("every 6 months", "every 2 years"),
                ),
                fact(
                    "frt.racking_inspector",
                    "auditor",
                    "The independent racking inspection is carried out by {v}.",
                    "Tolland Racking Inspections",
                    (
                        ("voice", "{v} carries out the independent racking inspection."),
                        "The warehouse's racking is inspected by {v}.",
                    ),
                    ("Kerrigan Storage Safety", "Aalbers Inspectie"),
                ),
                must(
                    "frt.hivis",
                    "Visitors {v} wear a high-visibility vest and safety shoes on the "
                    "warehouse floor.",
                    (
                        "On the warehouse floor, visitors {v} wear safety shoes and a "
                        "high-visibility vest.",
                        "People visiting the warehouse floor {v} wear a high-visibility vest "
                        "and safety shoes.",
                    ),
                    ("do not need to", "are not required to"),
                ),
                must_not(
                    "frt.aisles",
                    "Pedestrians {v} walk in the marked forklift aisles.",
                    (
                        "People on foot {v} walk in the marked forklift aisles.",
                        "In the marked forklift aisles, pedestrians {v} walk.",
                    ),
                ),
            ),
        ),
    )
    return Vault("ostrander-freight", (terms, sla, dangerous, warehouse))


# ----------------------------------------------------------------------------- vault 3


def _utility() -> Vault:
    """Harwick City Utilities: field safety, outage response, water sampling (USD)."""
    safety = Document(
        "field-safety-manual.md",
        "Harwick City Utilities Field Safety Manual",
        (
            meta(
                (
                    "Manual ID",
                    fact(
                        "utl.safety_id",
                        "identifier",
                        "{v}",
                        "HCU-SAF-01",
                        (
                            "The field safety manual's ID is {v}.",
                            (
                                "voice",
                                "{v} is the ID of Harwick City Utilities' field safety manual.",
                            ),
                        ),
                        ("HCU-SAF-10", "HCU-OPS-01"),
                    ),
                ),
                (
                    "Effective",
                    fact(
                        "utl.safety_date",
                        "date",
                        "{v}",
                        "March 3, 2025",
                        (
                            "The field safety manual took effect on {v}.",
                            (
                                "voice",
                                "Harwick City Utilities brought its field safety manual "
                                "into effect on {v}.",
                            ),
                        ),
                        ("March 13, 2025", "May 3, 2025"),
                    ),
                ),
                ("Owner", "Safety and Training Manager"),
            ),
            p(
                "This manual applies to every employee and contractor who works in the field for "
                "Harwick City Utilities: line crews, water and sewer crews, meter technicians and "
                "inspectors. Any crew member may stop work they believe is unsafe, without fear of"
                " reprisal."
            ),
            h("1. Electrical Work"),
            ul(
                fact(
                    "utl.nfpa",
                    "identifier",
                    "Electrical work practices follow {v}.",
                    "NFPA 70E",
                    (
                        "Field crews follow {v} for electrical work practices.",
                        (
                            "voice",
                            "The standard behind the utility's electrical work practices is {v}.",
                        ),
                    ),
                    ("NFPA 70", "NFPA 72"),
                    bold=True,
                ),
                fact(
                    "utl.arc_flash",
                    "frequency",
                    "Arc-flash risk assessments for each substation are updated {v}, or "
                    "sooner when equipment changes.",
                    "every 5 years",
                    (
                        "Each substation's arc-flash risk assessment is updated {v}, or "
                        "sooner if its equipment changes.",
                        (
                            "voice",
                            "The utility updates substation arc-flash risk assessments "
                            "{v} unless equipment changes first.",
                        ),
                    ),
                    ("every 3 years", "every 10 years"),
                ),
                fact(
                    "utl.gloves",
                    "frequency",
                    "Rubber insulating gloves are electrically retested {v}.",
                    "every 6 months",
                    (
                        "Crews' rubber insulating gloves get an electrical retest {v}.",
                        ("voice", "The utility retests rubber insulating gloves electrically {v}."),
                    ),
                    ("every 12 months", "every 3 months"),
                ),
                fact(
                    "utl.voltage",
                    "number",
                    "Two qualified workers are needed for any work on energized equipment "
                    "above {v}.",
                    "600 volts",
                    (
                        "Work on energized equipment above {v} needs two qualified workers.",
                        (
                            "voice",
                            "The utility sends two qualified workers to any job on "
                            "energized equipment above {v}.",
                        ),
                    ),
                    ("480 volts", "240 volts"),
                ),
                must_not(
                    "utl.alone",
                    "Working alone on energized equipment above 600 volts {v}.",
                    (
                        "Lone work on energized equipment above 600 volts {v}.",
                        "At Harwick City Utilities, working alone on energized equipment above "
                        "600 volts {v}.",
                    ),
                    wrong=("is permitted", "is allowed"),
                    value="is prohibited",
                    same=(
                        ("prohibition_synonym", "is forbidden"),
                        ("prohibition_synonym", "is not allowed"),
                    ),
                ),
                must(
                    "utl.lockout",
                    "Crews {v} apply lockout/tagout before servicing any equipment that could "
                    "be energized.",
                    (
                        "Before servicing equipment that could be energized, crews {v} apply "
                        "lockout/tagout.",
                        "Field crews {v} lock out and tag out any equipment that could be "
                        "energized before they service it.",
                    ),
                    ("are not required to", "do not need to"),
                ),
                fact(
                    "utl.loto_standard",
                    "identifier",
                    "The lockout/tagout program follows {v}.",
                    "OSHA 1910.147",
                    (
                        "Harwick City Utilities' lockout/tagout program is based on {v}.",
                        ("voice", "The regulation the lockout/tagout program follows is {v}."),
                    ),
                    ("OSHA 1910.146", "OSHA 1926.405"),
                ),
            ),
            p(
                "Before each job the crew leader holds a job briefing that covers the hazards, the"
                " energy sources, the work procedure and the personal protective equipment "
                "required. The briefing is recorded on the job sheet and signed by every crew "
                "member."
            ),
            h("2. Confined Spaces"),
            ul(
                fact(
                    "utl.oxygen",
                    "range",
                    "Before entry, the atmosphere must hold {v} oxygen.",
                    "19.5-23.5%",
                    (
                        "A confined space may only be entered when its atmosphere holds {v} "
                        "oxygen.",
                        (
                            "voice",
                            "Entrants check that the atmosphere holds {v} oxygen before "
                            "they go in.",
                        ),
                    ),
                    ("18-21%", "20.5-23.5%"),
                ),
                fact(
                    "utl.lel",
                    "percent",
                    "Entry stops as soon as flammable gas reaches {v} of the lower explosive "
                    "limit (LEL).",
                    "10%",
                    (
                        "Work in a confined space stops once flammable gas reaches {v} of the "
                        "lower explosive limit.",
                        (
                            "voice",
                            "Crews stop an entry as soon as flammable gas reaches {v} of the LEL.",
                        ),
                    ),
                    ("20%", "25%"),
                    bold=True,
                ),
                must(
                    "utl.attendant",
                    "An attendant {v} stay outside the space for the whole of every entry.",
                    (
                        "For the whole of every confined space entry, an attendant {v} remain "
                        "outside.",
                        "Every confined space entry has an attendant, who {v} stay outside "
                        "throughout.",
                    ),
                    ("does not have to", "is not required to"),
                    singular=True,
                ),
                fact(
                    "utl.detector_vendor",
                    "vendor",
                    "Four-gas detectors are supplied and calibrated by {v}.",
                    "Redfern Instruments",
                    (
                        ("voice", "{v} supplies and calibrates the utility's four-gas detectors."),
                        "The four-gas detectors come from {v}, which also calibrates them.",
                    ),
                    ("Solano Gas Detection", "Barrow Safety Supply"),
                ),
                fact(
                    "utl.detector_cal",
                    "frequency",
                    "Detectors are bump-tested before each use and fully calibrated {v}.",
                    "monthly",
                    (
                        "A full calibration of each gas detector is done {v}.",
                        (
                            "reorder",
                            "Gas detectors are fully calibrated {v} and bump-tested before "
                            "each use.",
                        ),
                    ),
                    ("quarterly", "every 6 months"),
                ),
            ),
            p(
                "Entry permits are issued by the crew leader and posted at the entrance while the "
                "work lasts. The permit is cancelled when the work is complete or when conditions "
                "change."
            ),
            h("3. Excavation"),
            ul(
                fact(
                    "utl.trench",
                    "number",
                    "Trenches {v} deep or more have a protective system such as shoring or a "
                    "trench box.",
                    "5 feet",
                    (
                        "Any trench at least {v} deep gets shoring, a trench box or another "
                        "protective system.",
                        (
                            "voice",
                            "Crews install a protective system in every trench {v} or more deep.",
                        ),
                    ),
                    ("4 feet", "3 feet"),
                ),
                must(
                    "utl.competent",
                    "A competent person {v} inspect every trench at the start of each shift.",
                    (
                        "At the start of each shift, a competent person {v} inspect every trench.",
                        "Each trench {v} be inspected by a competent person at the start of "
                        "every shift.",
                    ),
                    ("is not required to", "does not need to"),
                    singular=True,
                ),
                fact(
                    "utl.locate",
                    "duration",
                    "Utility locate requests are made at least {v} before digging.",
                    "48 hours",
                    (
                        "Crews request utility locates at least {v} before they dig.",
                        (
                            "voice",
                            "A locate request has to be made no less than {v} ahead of "
                            "any digging.",
                        ),
                    ),
                    ("72 hours", "5 days"),
                ),
            ),
            h("3.1 Incident Reporting", 3),
            p(
                "Injuries, near misses and damage to utility property are reported to the crew "
                "leader at once and recorded in the incident system before the end of the shift. "
                "The Safety and Training Manager reviews every report and shares the lessons "
                "learned with all crews."
            ),
            h("4. Training and Audit"),
            ul(
                fact(
                    "utl.training_yard",
                    "place",
                    "New field staff complete a three-day safety course at the {v} training yard.",
                    "Mill Street",
                    (
                        "The three-day safety course for new field staff takes place at the "
                        "{v} training yard.",
                        (
                            "voice",
                            "The utility trains new field staff for three days at its {v} "
                            "training yard.",
                        ),
                    ),
                    ("Quarry Road", "Riverside Drive"),
                ),
                fact(
                    "utl.safety_auditor",
                    "auditor",
                    "The field safety program is audited each year by {v}.",
                    "Calder Safety Auditors",
                    (
                        ("voice", "{v} audits the utility's field safety program every year."),
                        "The yearly audit of the field safety program is done by {v}.",
                    ),
                    ("Pinewood Risk Consultants", "Marshall & Tate Safety"),
                ),
                fact(
                    "utl.insurance",
                    "money",
                    "Contractors carry general liability insurance of at least {v} per occurrence.",
                    "$2 million",
                    (
                        "A contractor must hold general liability cover of no less than {v} "
                        "per occurrence.",
                        (
                            "voice",
                            "The utility requires contractors to carry at least {v} per "
                            "occurrence in general liability insurance.",
                        ),
                    ),
                    ("$5 million", "$3 million"),
                ),
            ),
        ),
    )
    outage_classes = Table(
        "utl.classes",
        "Outage class",
        ("Definition",),
        (
            Column(
                "First crew on site",
                (
                    "For a {row} outage, the first crew should be on site within {v}.",
                    "The first-crew-on-site target for a {row} outage is {v}.",
                ),
            ),
            Column(
                "Restoration target",
                (
                    "Service should be restored within {v} for a {row} outage.",
                    "The restoration target for a {row} outage is {v}.",
                ),
            ),
        ),
        (
            Row(
                "Class 1",
                "Class 1",
                ("45 minutes", "4 hours"),
                ("Hospitals, water pumping stations or more than 5,000 customers",),
            ),
            Row("Class 2", "Class 2", ("90 minutes", "8 hours"), ("500 to 5,000 customers",)),
            Row("Class 3", "Class 3", ("3 hours", "24 hours"), ("Fewer than 500 customers",)),
        ),
    )
    outage = Document(
        "outage-response-procedure.md",
        "Outage Response Procedure",
        (
            meta(
                (
                    "Procedure ID",
                    fact(
                        "utl.outage_id",
                        "identifier",
                        "{v}",
                        "HCU-OR-05",
                        (
                            "The outage response procedure is document {v}.",
                            ("voice", "{v} identifies the utility's outage response procedure."),
                        ),
                        ("HCU-OR-50", "HCU-ER-05"),
                    ),
                ),
                (
                    "Last revised",
                    fact(
                        "utl.outage_date",
                        "date",
                        "{v}",
                        "September 9, 2025",
                        (
                            "The outage response procedure was last revised on {v}.",
                            (
                                "voice",
                                "Harwick City Utilities last revised its outage response "
                                "procedure on {v}.",
                            ),
                        ),
                        ("September 19, 2025", "August 9, 2025"),
                    ),
                ),
            ),
            p(
                "This procedure covers unplanned interruptions of electricity and water service. "
                "The control room supervisor leads the response until service is restored to every"
                " affected customer."
            ),
            h("1. Outage Classes"),
            p(
                "The control room classifies every unplanned outage when it is confirmed. "
                "Targets are measured from confirmation."
            ),
            outage_classes,
            h("2. Customer Communication"),
            ul(
                fact(
                    "utl.text_notice",
                    "duration",
                    "Affected customers are notified by text message within {v} of an outage "
                    "being confirmed.",
                    "15 minutes",
                    (
                        "Customers hit by an outage get a text message within {v} of it being "
                        "confirmed.",
                        (
                            "voice",
                            "The utility texts affected customers within {v} of "
                            "confirming an outage.",
                        ),
                    ),
                    ("30 minutes", "5 minutes"),
                ),
                fact(
                    "utl.outage_map",
                    "frequency",
                    "The public outage map is refreshed {v}.",
                    "every 30 minutes",
                    (
                        "The outage map the public sees is updated {v}.",
                        ("voice", "Harwick City Utilities refreshes its public outage map {v}."),
                    ),
                    ("every hour", "every 5 minutes"),
                ),
                fact(
                    "utl.planned_notice",
                    "range",
                    "Customers receive notice of a planned interruption {v} in advance.",
                    "48-72 hours",
                    (
                        "A planned interruption is announced to customers {v} ahead.",
                        (
                            "voice",
                            "The utility tells customers about a planned interruption "
                            "{v} before it happens.",
                        ),
                    ),
                    ("24-48 hours", "5-7 days"),
                ),
                fact(
                    "utl.oms",
                    "vendor",
                    "Outages are tracked in the {v} outage management system.",
                    "GridPulse OMS",
                    (
                        "The utility tracks outages in {v}.",
                        (
                            "voice",
                            "{v} is the outage management system in which outages are tracked.",
                        ),
                    ),
                    ("VoltTrack", "OutageIQ"),
                ),
            ),
            p(
                "Customer service agents see the same information as the outage map, so customers "
                "get the same estimate of the restoration time whichever channel they use."
            ),
            h("2.1 After the Outage", 3),
            p(
                "Once service is restored, the control room closes the event in the outage "
                "management system and records its cause. Every Class 1 outage gets a written "
                "review, which is shared with the city council's utilities committee."
            ),
            h("3. Escalation"),
            ul(
                fact(
                    "utl.mutual_aid_share",
                    "percent",
                    "Mutual aid is requested when more than {v} of customers are without power.",
                    "15%",
                    (
                        "The utility asks for mutual aid once over {v} of its customers have "
                        "no power.",
                        (
                            "reorder",
                            "When more than {v} of customers are without power, mutual aid is "
                            "requested.",
                        ),
                    ),
                    ("10%", "5%"),
                ),
                fact(
                    "utl.mutual_aid_org",
                    "vendor",
                    "Mutual aid crews are requested through the {v}.",
                    "Tri-County Utility Alliance",
                    (
                        "The utility requests mutual aid crews through the {v}.",
                        (
                            "voice",
                            "The {v} is the organisation through which mutual aid crews "
                            "are requested.",
                        ),
                    ),
                    ("Great Lakes Mutual Assistance Group", "Northern Utilities Compact"),
                ),
                fact(
                    "utl.eoc",
                    "place",
                    "For any Class 1 outage, the Emergency Operations Center is activated at "
                    "the {v} operations building.",
                    "Alder Road",
                    (
                        "The Emergency Operations Center opens at the {v} operations building "
                        "for every Class 1 outage.",
                        (
                            "reorder",
                            "The {v} operations building hosts the Emergency Operations "
                            "Center when a Class 1 outage occurs.",
                        ),
                    ),
                    ("Kingsway", "Canal Street"),
                ),
                fact(
                    "utl.bill_credit",
                    "money",
                    "Residential customers without power for more than 48 hours receive a {v} "
                    "credit on their next bill.",
                    "$50",
                    (
                        "A residential customer left without power for over 48 hours gets a "
                        "{v} bill credit.",
                        (
                            "voice",
                            "The utility credits {v} to the next bill of residential "
                            "customers who were without power for more than 48 hours.",
                        ),
                    ),
                    ("$100", "$25"),
                ),
                must(
                    "utl.grounded",
                    "Crews {v} confirm that the line is de-energized and grounded before "
                    "starting repairs.",
                    (
                        "Before starting repairs, crews {v} confirm the line is de-energized "
                        "and grounded.",
                        "Line crews {v} check that a line is de-energized and grounded before "
                        "they repair it.",
                    ),
                    ("are not required to", "do not need to"),
                ),
                must_not(
                    "utl.reenergize",
                    "A line {v} re-energized before the crew leader has accounted for every "
                    "worker.",
                    (
                        "Until the crew leader has accounted for every worker, a line {v} "
                        "re-energized.",
                        "Lines {v} re-energized before every worker is accounted for by the "
                        "crew leader.",
                    ),
                    wrong=("may be", "can be"),
                    value="must not be",
                    same=(
                        ("prohibition_synonym", "may not be"),
                        ("prohibition_synonym", "cannot be"),
                    ),
                ),
            ),
        ),
    )
    water = Document(
        "water-quality-sampling-plan.md",
        "Water Quality Sampling Plan",
        (
            meta(
                (
                    "Plan ID",
                    fact(
                        "utl.wq_id",
                        "identifier",
                        "{v}",
                        "HCU-WQ-02",
                        (
                            "The water quality sampling plan is document {v}.",
                            (
                                "voice",
                                "{v} is the ID of the utility's water quality sampling plan.",
                            ),
                        ),
                        ("HCU-WQ-20", "HCU-WS-02"),
                    ),
                ),
                (
                    "Approved by the state",
                    fact(
                        "utl.wq_date",
                        "date",
                        "{v}",
                        "January 20, 2025",
                        (
                            "The state approved the water quality sampling plan on {v}.",
                            (
                                "voice",
                                "The water quality sampling plan received state approval on {v}.",
                            ),
                        ),
                        ("January 2, 2025", "June 20, 2025"),
                    ),
                ),
            ),
            p(
                "This plan describes where, how often and by whom drinking water is sampled, so "
                "that the utility meets its monitoring obligations and can show customers that "
                "their water is safe."
            ),
            h("1. Sampling Sites"),
            ul(
                fact(
                    "utl.plant",
                    "place",
                    "Raw and treated water samples are taken daily at the {v} treatment plant.",
                    "Elm Hollow",
                    (
                        "The {v} treatment plant is where raw and treated water are sampled "
                        "every day.",
                        (
                            "voice",
                            "Operators sample raw and treated water daily at the {v} "
                            "treatment plant.",
                        ),
                    ),
                    ("Cedar Falls", "Stony Brook"),
                ),
                fact(
                    "utl.sites",
                    "number",
                    "Bacteriological samples are taken at {v} sites across the distribution "
                    "system each month.",
                    "40",
                    (
                        "Each month, bacteriological samples come from {v} sites in the "
                        "distribution system.",
                        (
                            "voice",
                            "The utility samples {v} distribution system sites for "
                            "bacteria every month.",
                        ),
                    ),
                    ("60", "25"),
                ),
                fact(
                    "utl.chlorine",
                    "range",
                    "Free chlorine residual in the distribution system is kept at {v}.",
                    "0.2-4.0 mg/L",
                    (
                        "The distribution system's free chlorine residual is held at {v}.",
                        (
                            "voice",
                            "The utility keeps free chlorine residual in the "
                            "distribution system at {v}.",
                        ),
                    ),
                    ("0.5-2.0 mg/L", "1.0-5.0 mg/L"),
                    bold=True,
                ),
                must_not(
                    "utl.hose_bibs",
                    "Samples {v} collected from outdoor hose bibs.",
                    (
                        "Outdoor hose bibs {v} used as sampling points.",
                        "Water samples {v} taken from outdoor hose bibs.",
                    ),
                    wrong=("may be", "can be"),
                    value="must not be",
                    same=(
                        ("prohibition_synonym", "may not be"),
                        ("prohibition_synonym", "are not to be"),
                    ),
                ),
            ),
            p(
                "Samplers are trained before they collect compliance samples. Each sample is "
                "labelled with the site, date, time and sampler, kept cool and delivered to the "
                "laboratory with a chain-of-custody form."
            ),
            h("2. Laboratory and Methods"),
            ul(
                fact(
                    "utl.lab",
                    "vendor",
                    "Samples are analyzed by {v}, a state-certified laboratory.",
                    "Bellmont Environmental Laboratories",
                    (
                        ("voice", "{v}, a state-certified laboratory, analyzes the samples."),
                        "The utility's samples go to {v} for analysis.",
                    ),
                    ("Clearwater Analytical", "Harbor Point Labs"),
                ),
                fact(
                    "utl.method",
                    "identifier",
                    "Total coliform is tested with {v}.",
                    "Standard Methods 9223 B",
                    (
                        "The laboratory uses {v} to test for total coliform.",
                        ("voice", "The method for total coliform testing is {v}."),
                    ),
                    ("Standard Methods 9222 B", "EPA Method 1604"),
                ),
                fact(
                    "utl.coliform_report",
                    "duration",
                    "A positive total coliform result is reported to the State Drinking Water "
                    "Program within {v}.",
                    "24 hours",
                    (
                        "The utility reports a positive total coliform result to the State "
                        "Drinking Water Program within {v}.",
                        (
                            "voice",
                            "The State Drinking Water Program hears of any positive "
                            "total coliform result within {v}.",
                        ),
                    ),
                    ("48 hours", "72 hours"),
                ),
                fact(
                    "utl.coliform_free",
                    "percent",
                    "At least {v} of monthly samples must be free of total coliform.",
                    "95%",
                    (
                        "{v} or more of the monthly samples have to be free of total coliform.",
                        (
                            "voice",
                            "The utility needs {v} or more of its monthly samples to be "
                            "free of total coliform.",
                        ),
                    ),
                    ("99%", "98%"),
                ),
            ),
            h("2.1 Public Reporting", 3),
            p(
                "Results are summarised in the annual Consumer Confidence Report, which is posted "
                "on the utility's website and mailed to every customer."
            ),
            h("3. Lead and Copper"),
            ul(
                fact(
                    "utl.lead",
                    "frequency",
                    "Lead and copper samples are taken from homes {v}.",
                    "every 3 years",
                    (
                        "Homes are sampled for lead and copper {v}.",
                        ("voice", "The utility takes lead and copper samples from homes {v}."),
                    ),
                    ("every year", "every 5 years"),
                ),
                fact(
                    "utl.lead_test",
                    "money",
                    "A customer lead test costs {v}; the first test for a household with "
                    "children under 6 is free.",
                    "$35",
                    (
                        "Customers pay {v} for a lead test, though a household with children "
                        "under 6 gets its first test free.",
                        ("voice", "The utility charges {v} for a customer lead test."),
                    ),
                    ("$50", "$20"),
                ),
                fact(
                    "utl.wq_auditor",
                    "auditor",
                    "Every three years the sampling program is audited by {v}.",
                    "Pruett Water Compliance",
                    (
                        ("voice", "{v} audits the sampling program every three years."),
                        "The sampling program's audit every three years is done by {v}.",
                    ),
                    ("Sorensen Environmental Audit", "Blue Ridge Compliance Group"),
                ),
            ),
        ),
    )
    return Vault("harwick-city-utilities", (safety, outage, water))


# ----------------------------------------------------------------------------- vault 4


def _university() -> Vault:
    """Tallowood University: leave, travel and expenses, research leave (AUD)."""
    parental = Table(
        "uni.parental",
        "Employment",
        (),
        (
            Column(
                "Paid primary carer leave",
                (
                    "{row} receive {v} of paid primary carer leave.",
                    "Paid primary carer leave for {row} is {v}.",
                ),
            ),
            Column(
                "Paid partner leave",
                (
                    "{row} receive {v} of paid partner leave.",
                    "Paid partner leave for {row} is {v}.",
                ),
            ),
        ),
        (
            Row("Continuing staff", "continuing staff", ("26 weeks", "4 weeks")),
            Row(
                "Fixed-term staff with 12 months' service or more",
                "fixed-term staff with at least 12 months' service",
                ("16 weeks", "2 weeks"),
            ),
        ),
    )
    leave = Document(
        "leave-policy.md",
        "Tallowood University Leave Policy",
        (
            meta(
                (
                    "Policy number",
                    fact(
                        "uni.leave_id",
                        "identifier",
                        "{v}",
                        "HR-POL-112",
                        (
                            "The university's leave policy is policy number {v}.",
                            ("voice", "{v} is the number of Tallowood University's leave policy."),
                        ),
                        ("HR-POL-121", "HR-PRO-112"),
                    ),
                ),
                (
                    "Effective",
                    fact(
                        "uni.leave_date",
                        "date",
                        "{v}",
                        "1 July 2025",
                        (
                            "The leave policy has applied since {v}.",
                            (
                                "voice",
                                "Tallowood University brought its leave policy into effect on {v}.",
                            ),
                        ),
                        ("1 July 2024", "1 June 2025"),
                    ),
                ),
                (
                    "Review cycle",
                    fact(
                        "uni.leave_review",
                        "frequency",
                        "{v}",
                        "every 2 years",
                        (
                            "The leave policy is reviewed {v}.",
                            ("voice", "Human Resources reviews the leave policy {v}."),
                        ),
                        ("every year", "every 3 years"),
                    ),
                ),
            ),
            p(
                "This policy applies to all continuing and fixed-term staff of Tallowood "
                "University. Casual staff are covered by the casual employment provisions of the "
                "Enterprise Agreement."
            ),
            h("1. Annual Leave"),
            ul(
                fact(
                    "uni.annual",
                    "duration",
                    "Full-time staff accrue {v} of annual leave for each year of service.",
                    "4 weeks",
                    (
                        "For each year of service, full-time staff build up {v} of annual leave.",
                        (
                            "voice",
                            "The university grants full-time staff {v} of annual leave "
                            "per year of service.",
                        ),
                    ),
                    ("5 weeks", "6 weeks"),
                ),
                fact(
                    "uni.loading",
                    "percent",
                    "Annual leave loading of {v} is paid on up to 4 weeks of leave a year.",
                    "17.5%",
                    (
                        "Staff receive a leave loading of {v} on up to 4 weeks of annual leave "
                        "each year.",
                        (
                            "voice",
                            "The university pays {v} annual leave loading on up to 4 "
                            "weeks of leave a year.",
                        ),
                    ),
                    ("15%", "20%"),
                    bold=True,
                ),
                fact(
                    "uni.balance",
                    "number",
                    "Staff may hold a balance of up to {v} days of annual leave; above that, "
                    "their manager agrees a plan to reduce it.",
                    "40",
                    (
                        "An annual leave balance of up to {v} days may be held before a plan "
                        "to reduce it is needed.",
                        (
                            "voice",
                            "Managers agree a reduction plan with staff whose annual "
                            "leave balance goes above {v} days.",
                        ),
                    ),
                    ("50", "60"),
                ),
                fact(
                    "uni.notice",
                    "duration",
                    "Requests for more than 10 consecutive days of leave are made at least {v} "
                    "in advance.",
                    "6 weeks",
                    (
                        "Leave of over 10 consecutive days has to be requested at least {v} ahead.",
                        (
                            "voice",
                            "Staff request more than 10 consecutive days of leave no "
                            "less than {v} in advance.",
                        ),
                    ),
                    ("8 weeks", "10 weeks"),
                ),
                fact(
                    "uni.portal",
                    "vendor",
                    "Leave is requested and approved in the {v} staff portal.",
                    "StaffHub",
                    (
                        "Staff request their leave, and managers approve it, in {v}.",
                        ("voice", "{v} is the staff portal where leave is requested and approved."),
                    ),
                    ("PeopleDesk", "MyHR Online"),
                ),
                must_not(
                    "uni.cancel",
                    "Managers {v} cancel approved leave without the employee's agreement.",
                    (
                        "Without the employee's agreement, managers {v} cancel leave that has "
                        "been approved.",
                        "Managers {v} cancel an employee's approved leave unless the employee "
                        "agrees.",
                    ),
                ),
            ),
            p(
                "Annual leave is taken at a time agreed between the employee and their manager. "
                "Managers plan leave across their team so that essential services continue during "
                "teaching periods and the end-of-year shutdown."
            ),
            h("2. Personal and Carer's Leave"),
            ul(
                fact(
                    "uni.personal",
                    "number",
                    "Full-time staff receive {v} of paid personal and carer's leave each year.",
                    "15 days",
                    (
                        "Each year full-time staff get {v} of paid personal and carer's leave.",
                        (
                            "voice",
                            "The university gives full-time staff {v} of paid personal "
                            "and carer's leave a year.",
                        ),
                    ),
                    ("10 days", "20 days"),
                ),
                fact(
                    "uni.certificate",
                    "duration",
                    "A medical certificate is required for an absence of more than {v} in a row.",
                    "3 days",
                    (
                        "Staff need a medical certificate when they are absent for over {v} in "
                        "a row.",
                        (
                            "reorder",
                            "For an absence of more than {v} in a row, a medical certificate "
                            "is required.",
                        ),
                    ),
                    ("2 days", "1 day"),
                ),
                must(
                    "uni.absence_call",
                    "Staff {v} tell their manager about an unplanned absence before their "
                    "usual start time.",
                    (
                        "Before their usual start time, staff {v} let their manager know of an "
                        "unplanned absence.",
                        "An unplanned absence is something staff {v} report to their manager "
                        "before they would normally start.",
                    ),
                    ("do not need to", "are not required to"),
                ),
            ),
            p(
                "Personal and carer's leave can be used when the employee is unfit for work, or "
                "needs to care for a member of their immediate family or household who is sick, "
                "injured or affected by an emergency."
            ),
            h("2.1 Other Leave", 3),
            ul(
                "Community service leave for volunteer emergency work and jury duty.",
                "Compassionate leave when a member of the employee's immediate family dies or has "
                "a life-threatening illness.",
                "Cultural and ceremonial leave for Aboriginal and Torres Strait Islander staff.",
            ),
            h("3. Parental Leave"),
            p("Paid parental leave is paid at the full rate of pay and counts as service."),
            parental,
            p(
                fact(
                    "uni.hr_centre",
                    "place",
                    "Parental leave forms are lodged with the HR Service Centre in the {v}.",
                    "Gatley Building",
                    (
                        "The HR Service Centre, where parental leave forms are lodged, is in "
                        "the {v}.",
                        (
                            "voice",
                            "Staff lodge parental leave forms with the HR Service Centre "
                            "in the {v}.",
                        ),
                    ),
                    ("Ashworth Building", "Moreton Building"),
                )
            ),
        ),
    )
    allowances = Table(
        "uni.allowances",
        "Destination",
        (),
        (
            Column(
                "Daily meal allowance",
                (
                    "The daily meal allowance for travel to {row} is {v}.",
                    "Staff travelling to {row} can claim up to {v} a day for meals.",
                ),
            ),
            Column(
                "Nightly accommodation limit",
                (
                    "The nightly accommodation limit for {row} is {v}.",
                    "Accommodation in {row} is reimbursed up to {v} a night.",
                ),
            ),
        ),
        (
            Row("Australian capital cities", "Australian capital cities", ("A$95", "A$280")),
            Row("Regional Australia", "regional Australia", ("A$80", "A$190")),
            Row("Asia", "Asia", ("A$110", "A$320")),
            Row("Europe and North America", "Europe and North America", ("A$130", "A$390")),
        ),
    )
    travel = Document(
        "travel-and-expenses-policy.md",
        "Tallowood University Travel and Expenses Policy",
        (
            meta(
                (
                    "Policy number",
                    fact(
                        "uni.travel_id",
                        "identifier",
                        "{v}",
                        "FIN-POL-031",
                        (
                            "The travel and expenses policy is policy number {v}.",
                            (
                                "voice",
                                "{v} is the number of the university's travel and expenses policy.",
                            ),
                        ),
                        ("FIN-POL-013", "FIN-PRO-031"),
                    ),
                ),
                (
                    "Approved",
                    fact(
                        "uni.travel_date",
                        "date",
                        "{v}",
                        "18 August 2025",
                        (
                            "The travel and expenses policy was approved on {v}.",
                            (
                                "voice",
                                "Tallowood University approved its travel and expenses "
                                "policy on {v}.",
                            ),
                        ),
                        ("18 September 2025", "8 August 2025"),
                    ),
                ),
            ),
            p(
                "This policy applies to anyone who travels on university business or whose travel "
                "is paid from university funds, including students and visitors. Travel is booked "
                "only when its purpose cannot reasonably be met by videoconference."
            ),
            h("1. Booking Travel"),
            ul(
                fact(
                    "uni.tmc",
                    "vendor",
                    "All flights and accommodation are booked through the University's travel "
                    "management company, {v}.",
                    "Meridian Corporate Travel",
                    (
                        ("voice", "{v} books all of the university's flights and accommodation."),
                        "The university's travel management company is {v}.",
                    ),
                    ("Skylark Business Travel", "Orbis Travel Group"),
                ),
                must(
                    "uni.intl_approval",
                    "International trips {v} be approved by the Head of School before booking.",
                    (
                        "Before booking, international trips {v} be approved by the Head of "
                        "School.",
                        "The Head of School's approval is something international trips {v} "
                        "have before they are booked.",
                    ),
                    ("do not need to", "are not required to"),
                ),
                fact(
                    "uni.business_class",
                    "duration",
                    "Business class may be approved for flights scheduled to take longer than {v}.",
                    "8 hours",
                    (
                        "Flights scheduled for more than {v} can be approved for business class.",
                        (
                            "voice",
                            "The university may approve business class for a flight "
                            "scheduled to last over {v}.",
                        ),
                    ),
                    ("6 hours", "5 hours"),
                ),
            ),
            p(
                "Travellers book the most economical fare that suits the purpose of the trip. "
                "Frequent flyer points earned on university travel do not influence the choice of "
                "airline."
            ),
            h("2. Allowances"),
            p(
                "Allowances cover meals and incidentals; accommodation is reimbursed at cost "
                "up to the limit for the destination."
            ),
            allowances,
            ul(
                fact(
                    "uni.mileage",
                    "money",
                    "Use of a private car for university business is reimbursed at {v} per "
                    "kilometre.",
                    "A$0.88",
                    (
                        "Staff who use their own car on university business are paid {v} per "
                        "kilometre.",
                        (
                            "voice",
                            "The university reimburses private car use at {v} per kilometre.",
                        ),
                    ),
                    ("A$0.78", "A$0.95"),
                ),
                fact(
                    "uni.dvc",
                    "money",
                    "Trips costing more than {v} in total are approved by the Deputy "
                    "Vice-Chancellor.",
                    "A$10,000",
                    (
                        "The Deputy Vice-Chancellor approves any trip with a total cost over {v}.",
                        (
                            "reorder",
                            "When a trip's total cost is more than {v}, its approval rests "
                            "with the Deputy Vice-Chancellor.",
                        ),
                    ),
                    ("A$5,000", "A$7,500"),
                    bold=True,
                ),
                must_not(
                    "uni.alcohol",
                    "Alcohol {v} claimed as a meal expense.",
                    (
                        "Under the travel policy, alcohol {v} claimed as part of a meal expense.",
                        "As a meal expense, alcohol {v} claimed.",
                    ),
                    wrong=("may be", "can be"),
                    value="may not be",
                    same=(
                        ("prohibition_synonym", "cannot be"),
                        ("prohibition_synonym", "must not be"),
                    ),
                ),
            ),
            p(
                "Where a meal is provided, for example at a conference, the allowance for that "
                "meal is not claimed."
            ),
            h("3. Claims and Audit"),
            ul(
                fact(
                    "uni.expense_tool",
                    "vendor",
                    "Expense claims are submitted through {v}.",
                    "Xpensa",
                    (
                        "Staff submit their expense claims in {v}.",
                        ("voice", "{v} is the system for submitting expense claims."),
                    ),
                    ("ClaimRight", "SpendTrack"),
                ),
                fact(
                    "uni.claim_window",
                    "duration",
                    "Expense claims are submitted within {v} of returning from travel.",
                    "60 days",
                    (
                        "Staff have {v} after returning from a trip to submit their expense "
                        "claims.",
                        ("voice", "Travellers submit expense claims within {v} of their return."),
                    ),
                    ("90 days", "30 days"),
                ),
                fact(
                    "uni.reimburse",
                    "range",
                    "Approved claims are reimbursed in {v}.",
                    "5-10 business days",
                    (
                        "Reimbursement of an approved claim takes {v}.",
                        ("voice", "The university pays approved claims in {v}."),
                    ),
                    ("10-15 business days", "3-5 business days"),
                ),
                fact(
                    "uni.card_recon",
                    "frequency",
                    "Corporate card transactions are reconciled {v}.",
                    "monthly",
                    (
                        "Cardholders reconcile their corporate card transactions {v}.",
                        ("voice", "The university has corporate card transactions reconciled {v}."),
                    ),
                    ("quarterly", "weekly"),
                ),
                fact(
                    "uni.sample",
                    "percent",
                    "Each quarter, a random sample of {v} of all expense claims is checked "
                    "against receipts.",
                    "10%",
                    (
                        "Every quarter {v} of expense claims, picked at random, are checked "
                        "against their receipts.",
                        (
                            "reorder",
                            "A random {v} of all expense claims is checked against receipts "
                            "each quarter.",
                        ),
                    ),
                    ("5%", "20%"),
                ),
                fact(
                    "uni.auditor",
                    "auditor",
                    "Travel expenditure is audited each year by the University's internal "
                    "auditor, {v}.",
                    "Prescott Lane Advisory",
                    (
                        (
                            "voice",
                            "{v}, the internal auditor, audits travel expenditure every year.",
                        ),
                        "The university's travel spending is audited annually by {v}.",
                    ),
                    ("Hargreave Audit", "Delmont Partners"),
                ),
                fact(
                    "uni.finance_centre",
                    "place",
                    "Lost corporate cards are reported to the Finance Service Centre in the {v}.",
                    "Banksia Building",
                    (
                        "A lost corporate card is reported to the Finance Service Centre, "
                        "which is in the {v}.",
                        (
                            "voice",
                            "Staff report lost corporate cards to the Finance Service "
                            "Centre in the {v}.",
                        ),
                    ),
                    ("Wattle Building", "Acacia House"),
                ),
            ),
        ),
    )
    research = Document(
        "research-leave-procedure.md",
        "Academic Research Leave Procedure",
        (
            p(
                "Research leave gives academic staff time away from teaching and administration to"
                " pursue research, build collaborations and develop new skills. It is granted on "
                "the merit of the proposed program, not as an automatic entitlement."
            ),
            h("1. Eligibility"),
            ul(
                fact(
                    "uni.clause",
                    "identifier",
                    "Research leave is granted under {v} of the Tallowood University "
                    "Enterprise Agreement 2024.",
                    "clause 47",
                    (
                        "The Enterprise Agreement 2024 provides for research leave in its {v}.",
                        (
                            "voice",
                            "{v} of the university's Enterprise Agreement 2024 is the "
                            "basis for granting research leave.",
                        ),
                    ),
                    ("clause 74", "clause 46"),
                ),
                fact(
                    "uni.eligibility",
                    "number",
                    "Academic staff become eligible after {v} of continuous service.",
                    "6 years",
                    (
                        "Eligibility for research leave starts after {v} of continuous service.",
                        (
                            "voice",
                            "The university makes academics eligible for research leave "
                            "once they have {v} of continuous service.",
                        ),
                    ),
                    ("5 years", "4 years"),
                ),
                fact(
                    "uni.length",
                    "duration",
                    "Research leave lasts up to {v}.",
                    "12 months",
                    (
                        "A period of research leave can last at most {v}.",
                        ("voice", "The university grants research leave of up to {v}."),
                    ),
                    ("18 months", "24 months"),
                ),
                fact(
                    "uni.salary",
                    "percent",
                    "Staff keep {v} of their salary while on research leave.",
                    "100%",
                    (
                        "While on research leave, staff are paid {v} of their salary.",
                        ("voice", "The university pays {v} of salary during research leave."),
                    ),
                    ("80%", "50%"),
                ),
            ),
            h("2. Applications"),
            ul(
                fact(
                    "uni.close",
                    "date",
                    "Applications for research leave in 2026 close on {v}.",
                    "31 March 2026",
                    (
                        "The closing date for 2026 research leave applications is {v}.",
                        (
                            "voice",
                            "Applicants must lodge their 2026 research leave application by {v}.",
                        ),
                    ),
                    ("30 April 2026", "31 March 2025"),
                ),
                fact(
                    "uni.committee",
                    "frequency",
                    "The Research Leave Committee meets {v} to consider applications.",
                    "twice a year",
                    (
                        "Applications are considered by the Research Leave Committee, which "
                        "meets {v}.",
                        (
                            "voice",
                            "The Research Leave Committee gathers {v} to decide on applications.",
                        ),
                    ),
                    ("once a year", "quarterly"),
                ),
                fact(
                    "uni.research_office",
                    "place",
                    "Applications are lodged with the Research Office at the {v} campus.",
                    "Kurrajong",
                    (
                        "The Research Office that receives applications is at the {v} campus.",
                        (
                            "voice",
                            "Applicants lodge their forms with the Research Office on "
                            "the {v} campus.",
                        ),
                    ),
                    ("Bellbird", "Greenvale"),
                ),
                fact(
                    "uni.funding",
                    "money",
                    "Research leave funding of up to {v} is available for travel.",
                    "A$15,000",
                    (
                        "Up to {v} of research leave funding can go towards travel.",
                        (
                            "voice",
                            "The university provides up to {v} in research leave "
                            "funding for travel.",
                        ),
                    ),
                    ("A$25,000", "A$20,000"),
                ),
            ),
            p(
                "Each application includes a research plan, the expected outcomes, the "
                "arrangements for the applicant's teaching and supervision while away, and the "
                "support of the Head of School."
            ),
            h("3. During and After Leave"),
            ul(
                must_not(
                    "uni.employment",
                    "Staff on research leave {v} take up paid employment elsewhere without "
                    "approval.",
                    (
                        "Without approval, staff on research leave {v} take paid work elsewhere.",
                        "During research leave, staff {v} accept paid employment elsewhere "
                        "unless it is approved.",
                    ),
                    wrong=("may", "are free to"),
                ),
                must(
                    "uni.return",
                    "Staff {v} return to the University for at least 12 months after their leave.",
                    (
                        "After research leave, staff {v} come back to the university for at "
                        "least 12 months.",
                        "For at least 12 months after their leave, staff {v} return to work "
                        "at the university.",
                    ),
                    ("do not need to", "are not required to"),
                ),
                fact(
                    "uni.report",
                    "duration",
                    "A report on the leave is submitted within {v} of returning.",
                    "3 months",
                    (
                        "Staff submit a report on their research leave within {v} of their return.",
                        (
                            "voice",
                            "Within {v} of returning, a report on the leave has to be submitted.",
                        ),
                    ),
                    ("6 months", "1 month"),
                ),
            ),
        ),
    )
    return Vault("tallowood-university", (leave, travel, research))


def vaults() -> tuple[Vault, ...]:
    return (_hospital(), _freight(), _utility(), _university())


# ----------------------------------------------------------------------------- rendering


def _cell(value: str | Fact) -> str:
    return value.rendered() if isinstance(value, Fact) else value


def _table_lines(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def render(document: Document) -> str:
    """The document's Markdown: every fact in its place, with its vault value."""
    lines = [f"# {document.title}", ""]
    for block in document.blocks:
        if isinstance(block, Meta):
            lines += _table_lines(("Field", "Value"), ((k, _cell(v)) for k, v in block.rows))
        elif isinstance(block, Heading):
            lines.append(f"{'#' * block.level} {block.text}")
        elif isinstance(block, Para):
            lines.append(" ".join(_cell(part) for part in block.parts))
        elif isinstance(block, Bullets):
            lines += [f"- {_cell(item)}" for item in block.items]
        else:
            headers = (block.first, *block.note_headers, *(c.header for c in block.columns))
            lines += _table_lines(headers, ((r.label, *r.notes, *r.cells) for r in block.rows))
        lines.append("")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- claims


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _facts(document: Document) -> Iterable[Fact]:
    for block in document.blocks:
        if isinstance(block, Meta):
            yield from (v for _, v in block.rows if isinstance(v, Fact))
        elif isinstance(block, Para):
            yield from (part for part in block.parts if isinstance(part, Fact))
        elif isinstance(block, Bullets):
            yield from (item for item in block.items if isinstance(item, Fact))


def _row(
    vault: str,
    document: str,
    key: str,
    label: str,
    kind: str,
    template: str,
    vault_value: str,
    claim_value: str,
    note: str,
) -> dict[str, str]:
    return {
        "vault": vault,
        "claim": _sentence(template.replace("{v}", claim_value)),
        "label": label,
        "kind": kind,
        "note": note,
        "document": document,
        "fact": key,
        "vault_value": vault_value,
        "claim_value": claim_value,
    }


def _fact_claims(vault: str, document: str, item: Fact) -> list[dict[str, str]]:
    """Two paraphrases and two fabrications of one fact, sharing its phrasings.

    The first paraphrase restates the value in another form (in the vault's own sentence or
    another phrasing) where the value has one; the second is another phrasing with a second
    form, or with the vault's value (a control: only the words change). The first fabrication
    is the vault's own sentence with a wrong value (a minimal edit), where the fact is a
    sentence; the other is a phrasing with a wrong value.
    """
    rng = random.Random(f"{SEED}:{item.key}")
    said = f"{document} says {item.value!r}"
    phrasings = list(item.say)
    rows = []

    def add(label: str, kind: str, template: str, value: str, how: str) -> None:
        rows.append(
            _row(
                vault,
                document,
                item.key,
                label,
                kind,
                template,
                item.value,
                value,
                f"{said}; {how}",
            )
        )

    forms = list(item.forms())
    if forms:
        form_kind, form = rng.choice(forms)
        pool = phrasings + ([("copy", item.copy)] if item.copy else [])
        template_kind, template = rng.choice(pool)
        how = "the vault's sentence" if template_kind == "copy" else "another phrasing"
        add(PARAPHRASE, form_kind, template, form, f"{how}, the value restated as {form!r}")
        _, second = rng.choice([p for p in phrasings if p[1] != template] or phrasings)
        others = [f for f in forms if f[1] != form]
        if others and rng.random() < 0.5:
            kind, value = rng.choice(others)
            add(PARAPHRASE, kind, second, value, f"another phrasing, the value as {value!r}")
        else:
            kind = next(k for k, t in phrasings if t == second)
            add(PARAPHRASE, kind, second, item.value, "the same value in another phrasing")
    else:
        for kind, template in rng.sample(phrasings, 2):
            add(PARAPHRASE, kind, template, item.value, "the same value in another phrasing")
    wrong = list(item.wrong)
    rng.shuffle(wrong)
    edits = [item.copy] if item.copy else []
    templates = edits + [t for _, t in rng.sample(phrasings, len(phrasings))]
    for value, template in zip(wrong, templates, strict=False):
        how = "the vault's sentence" if template == item.copy else "another phrasing"
        add(FABRICATED, item.kind, template, value, f"{how} with {value!r}")
    return rows


def _table_claims(vault: str, document: str, table: Table) -> list[dict[str, str]]:
    """One claim per cell, fabricated and paraphrased in a checkerboard: a fabrication takes
    the same row's other column (mostly) or another row's value of the same column."""
    rng = random.Random(f"{SEED}:{table.key}")
    offset = rng.randrange(2)
    rows = []
    for r, row in enumerate(table.rows):
        for c, column in enumerate(table.columns):
            value = row.cells[c]
            key = f"{table.key}.{r}.{c}"
            template = rng.choice(column.say).replace("{row}", row.subject)
            said = f"{document}, table row {row.label!r}, column {column.header!r}: {value!r}"
            if (r + c + offset) % 2 == 0:
                others = [
                    (row.cells[o], f"the {table.columns[o].header!r} column's value")
                    for o in range(len(table.columns))
                    if row.cells[o] != value
                ]
                rows_ = [
                    (other.cells[c], f"row {other.label!r}'s value")
                    for other in table.rows
                    if other.cells[c] != value
                ]
                pick = others if others and (not rows_ or rng.random() < 0.65) else rows_
                wrong, where = rng.choice(pick)
                rows.append(
                    _row(
                        vault,
                        document,
                        key,
                        FABRICATED,
                        "table_cell",
                        template,
                        value,
                        wrong,
                        f"{said}; the claim gives {where}, {wrong!r}",
                    )
                )
            else:
                forms = SAME.get(value, ()) or _auto_forms(value)
                if forms and rng.random() < 0.5:
                    kind, form = rng.choice(forms)
                else:
                    kind, form = "table_reading", value
                rows.append(
                    _row(
                        vault,
                        document,
                        key,
                        PARAPHRASE,
                        kind,
                        template,
                        value,
                        form,
                        f"{said}; the cell read as a sentence",
                    )
                )
    return rows


def build_claims(all_vaults: Sequence[Vault]) -> list[dict[str, str]]:
    """Every claim, in vault, document and fact order, with stable ids."""
    out: list[dict[str, str]] = []
    for vault in all_vaults:
        for document in vault.documents:
            for block in document.blocks:
                if isinstance(block, Table):
                    out += _table_claims(vault.name, document.name, block)
            for item in _facts(document):
                out += _fact_claims(vault.name, document.name, item)
    numbered = Counter[str]()
    ordered = []
    for row in out:
        numbered[row["fact"]] += 1
        tag = "f" if row["label"] == FABRICATED else "p"
        ordered.append({"id": f"{row['fact']}.{tag}{numbered[row['fact']]}", **row})
    return ordered


def check(all_vaults: Sequence[Vault], claims: Sequence[dict[str, str]]) -> None:
    """Refuse to write a benchmark that breaks its own rules (the tests check the output)."""
    keys = [f.key for v in all_vaults for d in v.documents for f in _facts(d)]
    duplicated = [k for k, n in Counter(keys).items() if n > 1]
    if duplicated:
        raise ValueError(f"fact keys used twice: {duplicated}")
    texts = Counter(c["claim"] for c in claims)
    if repeated := [t for t, n in texts.items() if n > 1]:
        raise ValueError(f"claims written twice: {repeated[:3]}")
    kinds = Counter(c["kind"] for c in claims if c["label"] == FABRICATED)
    short = {k: kinds[k] for k in FABRICATION_KINDS if kinds[k] < MIN_PER_KIND}
    if short:
        raise ValueError(f"fabrication kinds under {MIN_PER_KIND} claims: {short}")
    unknown = {c["kind"] for c in claims} - set(FABRICATION_KINDS) - set(PARAPHRASE_KINDS)
    if unknown:
        raise ValueError(f"unknown kinds: {sorted(unknown)}")


def write(out: Path) -> list[dict[str, str]]:
    """Write every vault folder and ``claims.jsonl`` under ``out`` (replacing an earlier
    benchmark there; a non-empty folder that is not one is refused)."""
    if out.exists() and any(out.iterdir()):
        if not (out / CLAIMS_FILE).exists():
            raise FileExistsError(f"{out} is not empty and holds no {CLAIMS_FILE}")
        shutil.rmtree(out)
    all_vaults = vaults()
    claims = build_claims(all_vaults)
    check(all_vaults, claims)
    for vault in all_vaults:
        folder = out / vault.name
        folder.mkdir(parents=True, exist_ok=True)
        for document in vault.documents:
            (folder / document.name).write_text(render(document), encoding="utf-8")
    lines = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in claims)
    (out / CLAIMS_FILE).write_text(lines, encoding="utf-8")
    return claims


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    claims = write(args.out)
    labels = Counter(c["label"] for c in claims)
    kinds = Counter(f"{c['label']}/{c['kind']}" for c in claims)
    print(f"{len(claims)} claims in {args.out}: {dict(labels)}")
    for kind, n in sorted(kinds.items()):
        print(f"  {kind:34} {n}")


if __name__ == "__main__":
    main()
