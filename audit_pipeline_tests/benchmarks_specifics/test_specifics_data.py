"""The specifics benchmark's data keeps its own rules (``benchmarks/specifics_data.py``).

A benchmark whose "paraphrases" quietly change a value, or whose "fabrications" happen to be
true, measures nothing; so the generator's output is checked here with a unit and number
reader of its own (not the generator's tables of equivalent forms, and not the product's):
every paraphrase restates a value the vault states, every fabrication states another one, and
the committed data is exactly what the generator writes.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from benchmarks.specifics_data import (
    CLAIMS_FILE,
    DEFAULT_OUT,
    FABRICATION_KINDS,
    FORM_KINDS,
    MIN_PER_KIND,
    PHRASING_KINDS,
    write,
)

Claims = list[dict[str, str]]

# ----------------------------------------------------------------------------- a value reader

_WORDS = {  # longest first when replaced
    "one hundred": 100,
    "one thousand": 1000,
    "twenty-one": 21,
    "twenty-four": 24,
    "twenty-six": 26,
    "forty-eight": 48,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "sixty": 60,
    "ninety": 90,
}
_PHRASES = {
    "three quarters of an hour": "45 minutes",
    "a quarter of an hour": "15 minutes",
    "an hour and a half": "90 minutes",
    "half an hour": "30 minutes",
    "half hour": "30 minutes",
    "half a year": "6 months",
    "a fortnight": "14 days",
}
_MINUTE = 1.0
_UNITS: dict[str, tuple[str, float]] = {
    "second": ("time", _MINUTE / 60),
    "minute": ("time", _MINUTE),
    "hour": ("time", 60 * _MINUTE),
    "day": ("time", 1440 * _MINUTE),
    "week": ("time", 7 * 1440 * _MINUTE),
    "month": ("time", 365 * 1440 * _MINUTE / 12),
    "year": ("time", 365 * 1440 * _MINUTE),
    "business day": ("business day", 1),
    "°c": ("temperature", 1),
    "degrees celsius": ("temperature", 1),
    "metre": ("length", 1),
    "m": ("length", 1),
    "foot": ("length", 0.3048),
    "feet": ("length", 0.3048),
    "inch": ("length", 0.0254),
    "inches": ("length", 0.0254),
    "volt": ("voltage", 1),
    "v": ("voltage", 1),
    "kv": ("voltage", 1000),
    "kg": ("mass", 1),
    "kilogram": ("mass", 1),
    "tonne": ("mass", 1000),
    "%": ("percent", 1),
    "percent": ("percent", 1),
    "per cent": ("percent", 1),
    "mg/l": ("concentration", 1),
    "milligrams per liter": ("concentration", 1),
}
_UNIT = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
_QTY = r"(\d[\d,]*(?:\.\d+)?)"
_CURRENCIES = {
    "a$": "AUD",
    "aud": "AUD",
    "australian dollars": "AUD",
    "£": "GBP",
    "gbp": "GBP",
    "pounds": "GBP",
    "€": "EUR",
    "eur": "EUR",
    "euros": "EUR",
    "$": "USD",
    "usd": "USD",
    "us dollars": "USD",
}
_CURRENCY = "|".join(sorted((re.escape(c) for c in _CURRENCIES), key=len, reverse=True))
_FREQUENCY = {
    "daily": "1 day",
    "weekly": "1 week",
    "monthly": "1 month",
    "quarterly": "3 months",
    "semi-annually": "6 months",
    "annually": "1 year",
    "triennially": "3 years",
}


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _unit(name: str) -> tuple[str, float]:
    name = name.strip()
    if name in _UNITS:
        return _UNITS[name]
    return _UNITS[name.removesuffix("s")]


def _words_to_digits(text: str) -> str:
    for phrase, plain in _PHRASES.items():
        text = text.replace(phrase, plain)
    for word, value in _WORDS.items():
        text = re.sub(rf"\b{re.escape(word)}\b", str(value), text)
    return re.sub(r"^(?:an?) (?=[a-z])", "1 ", text)


def read_value(value: str) -> tuple[Any, ...] | None:
    """A value as (dimension, magnitude...) in base units, or None when it is not a quantity,
    amount, date or time (a name, an identifier, a modal)."""
    text = value.lower().strip()
    for fmt in ("%d %B %Y", "%B %d, %Y", "%Y-%m-%d"):
        try:
            return ("date", datetime.strptime(value, fmt).date())
        except ValueError:
            pass
    if m := re.fullmatch(r"(\d{1,2}):(\d{2})", text):
        return ("clock", int(m[1]) * 60 + int(m[2]))
    if m := re.fullmatch(r"(\d{1,2}) ?(a\.m\.|am|p\.m\.|pm)", text):
        return ("clock", (int(m[1]) % 12 + (12 if m[2].startswith("p") else 0)) * 60)
    text = _words_to_digits(text)
    if m := re.fullmatch(rf"({_CURRENCY}) ?{_QTY}( million)?", text):
        return ("money", _CURRENCIES[m[1]], _number(m[2]) * (1e6 if m[3] else 1))
    if m := re.fullmatch(rf"{_QTY}( million)? ({_CURRENCY})", text):
        return ("money", _CURRENCIES[m[3]], _number(m[1]) * (1e6 if m[2] else 1))
    if m := re.fullmatch(rf"{_QTY} cents", text):
        return ("money", None, _number(m[1]) / 100)
    if m := re.fullmatch(
        rf"(?:between )?{_QTY} ?(?:(?:{_UNIT})s?)? ?(?:-| to | and ){_QTY} ?({_UNIT})s?", text
    ):
        dimension, factor = _unit(m[3])
        return ("range", dimension, _number(m[1]) * factor, _number(m[2]) * factor)
    text = _FREQUENCY.get(text, text)
    if m := re.fullmatch(rf"(?:every|once every) (other |{_QTY} )?({_UNIT})s?", text):
        count = 2.0 if m[1] == "other " else _number(m[2]) if m[2] else 1.0
        dimension, factor = _unit(m[3])
        return (dimension, count * factor)
    if m := re.fullmatch(rf"(?:(\d+) times|twice|once) an? ({_UNIT})", text):
        times = float(m[1]) if m[1] else 2.0 if "twice" in text else 1.0
        dimension, factor = _unit(m[2])
        return (dimension, factor / times)
    if m := re.fullmatch(rf"{_QTY} ?({_UNIT})s?", text):
        dimension, factor = _unit(m[2])
        return (dimension, _number(m[1]) * factor)
    if m := re.fullmatch(_QTY, text):
        return ("count", _number(m[1]))
    return None


def same_value(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    if a[0] == "money" and b[0] == "money" and None in (a[1], b[1]):
        return abs(a[2] - b[2]) < 1e-9  # "88 cents" names no currency
    if len(a) != len(b) or a[0] != b[0]:
        return False
    return all(
        abs(x - y) <= 1e-6 * max(abs(x), 1) if isinstance(x, float) else x == y
        for x, y in zip(a[1:], b[1:], strict=True)
    )


_NEGATIVE = re.compile(r"\b(not|never|no|cannot|prohibited|forbidden)\b")


def negative(modal: str) -> bool:
    return bool(_NEGATIVE.search(modal.lower()))


def test_the_value_reader() -> None:
    pairs = [
        ("every 12 months", "annually"),
        ("every 6 months", "twice a year"),
        ("quarterly", "every three months"),
        ("1 hour", "60 minutes"),
        ("14 days", "two weeks"),
        ("€5,000", "5,000 euros"),
        ("48-72 hours", "2-3 days"),
        ("14:00", "2 p.m."),
        ("A$0.88", "88 cents"),
        ("$2 million", "$2,000,000"),
        ("12 February 2025", "2025-02-12"),
        ("600 volts", "0.6 kV"),
    ]
    for a, b in pairs:
        found_a, found_b = read_value(a), read_value(b)
        assert found_a and found_b and same_value(found_a, found_b), (a, b)
    assert read_value("ISO 13485") is None
    assert not same_value(read_value("quarterly") or (), read_value("every 12 months") or ())
    assert read_value("12 February 2025") == ("date", date(2025, 2, 12))


# ----------------------------------------------------------------------------- the data


def _load(folder: Path) -> Claims:
    lines = (folder / CLAIMS_FILE).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _texts(folder: Path) -> dict[tuple[str, str], str]:
    """(vault, document) -> the document's text without Markdown emphasis."""
    return {
        (path.parent.name, path.name): path.read_text(encoding="utf-8").replace("**", "")
        for path in sorted(folder.glob("*/*.md"))
    }


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("specifics")
    write(out)
    return out


def test_vaults_and_claims(generated: Path) -> None:
    vaults = [p for p in generated.iterdir() if p.is_dir()]
    assert len(vaults) >= 3
    for vault in vaults:
        assert 3 <= len(list(vault.glob("*.md"))) <= 5, vault.name
    claims = _load(generated)
    assert len(claims) >= 300
    assert len({c["id"] for c in claims}) == len(claims)
    assert len({c["claim"] for c in claims}) == len(claims)
    texts = _texts(generated)
    for c in claims:
        assert (generated / c["vault"]).is_dir(), c["id"]
        assert (c["vault"], c["document"]) in texts, c["id"]
    fabricated = sum(c["label"] == "fabricated" for c in claims)
    assert 0.4 <= fabricated / len(claims) <= 0.6


def test_kinds(generated: Path) -> None:
    claims = _load(generated)
    for kind in FABRICATION_KINDS:
        n = sum(c["label"] == "fabricated" and c["kind"] == kind for c in claims)
        assert n >= MIN_PER_KIND, kind
    for c in claims:
        allowed = FABRICATION_KINDS if c["label"] == "fabricated" else FORM_KINDS + PHRASING_KINDS
        assert c["kind"] in allowed, c["id"]


def test_the_vault_states_every_fact_and_the_claim_states_its_value(generated: Path) -> None:
    texts = _texts(generated)
    for c in _load(generated):
        assert c["vault_value"] in texts[(c["vault"], c["document"])], c["id"]
        assert c["claim_value"].lower() in c["claim"].lower(), c["id"]


def test_paraphrases_restate_the_vault_value(generated: Path) -> None:
    for c in _load(generated):
        if c["label"] != "paraphrase":
            continue
        vault, claim = c["vault_value"], c["claim_value"]
        if c["kind"] in PHRASING_KINDS:
            assert claim == vault, c["id"]
        elif c["kind"] in ("obligation_synonym", "prohibition_synonym"):
            assert claim != vault and negative(claim) == negative(vault), c["id"]
        else:
            said, restated = read_value(vault), read_value(claim)
            assert said and restated, f"{c['id']}: cannot read {vault!r} or {claim!r}"
            assert same_value(said, restated), f"{c['id']}: {vault!r} is not {claim!r}"


def test_fabrications_change_the_vault_value(generated: Path) -> None:
    texts = _texts(generated)
    everything = "\n".join(texts.values()).lower()
    for c in _load(generated):
        if c["label"] != "fabricated":
            continue
        vault, claim = c["vault_value"], c["claim_value"]
        assert claim.lower() != vault.lower(), c["id"]
        assert c["claim"].lower() not in everything, c["id"]
        if c["kind"] in ("negated_obligation", "forbidden_allowed"):
            assert negative(claim) != negative(vault), c["id"]
        elif c["kind"] in ("vendor", "auditor", "place"):
            assert claim.lower() not in everything, f"{c['id']}: {claim!r} is in a vault"
        elif c["kind"] != "identifier":
            said, changed = read_value(vault), read_value(claim)
            assert said and changed, f"{c['id']}: cannot read {vault!r} or {claim!r}"
            assert not same_value(said, changed), f"{c['id']}: {claim!r} is {vault!r}"


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_the_generator_is_deterministic(generated: Path, tmp_path: Path) -> None:
    write(tmp_path / "again")
    assert _files(tmp_path / "again") == _files(generated)


def test_the_committed_data_is_the_generators(generated: Path) -> None:
    """The benchmark's vaults and claims are never edited by hand: they are what the generator
    writes (run ``python -m benchmarks.specifics_data`` after changing it)."""
    committed = _files(DEFAULT_OUT)
    assert committed == _files(generated)
    assert sum(len(b) for b in committed.values()) < 600_000
    assert max(len(b) for b in committed.values()) < 1_000_000
