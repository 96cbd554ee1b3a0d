"""The meaning benchmark's data keeps its own rules (``benchmarks/meaning_data.py``), and the
runner's figures are right on a tiny outcome list made by hand (no models are loaded).

The checks here are written apart from ``meaning_data.problems`` (which refuses to write a
benchmark that breaks them), so a change to that function cannot quietly loosen them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.meaning import FLAG_EVERYTHING, Scored, by_split, figures
from benchmarks.meaning_data import (
    CLAIMS_FILE,
    DEFAULT_DATA,
    DEV,
    FABRICATED,
    FABRICATION_TYPES,
    FAITHFUL,
    FAITHFUL_TYPES,
    SPLIT,
    SUPPORTS,
    TEST,
    VAULTS,
    problems,
    read_sources,
    render,
)

Rows = list[dict[str, str]]


@pytest.fixture(scope="module")
def rows() -> Rows:
    lines = (DEFAULT_DATA / CLAIMS_FILE).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_the_committed_claims_are_the_sources(rows: Rows) -> None:
    """``claims.jsonl`` is never edited by hand: it is what ``python -m
    benchmarks.meaning_data`` writes from ``claims/<domain>.yaml``."""
    assert (DEFAULT_DATA / CLAIMS_FILE).read_text(encoding="utf-8") == render(read_sources())
    assert problems(rows) == []


def test_the_split_is_five_dev_and_three_test_domains(rows: Rows) -> None:
    splits = Counter(SPLIT.values())
    assert splits == {DEV: 5, TEST: 3}
    assert {r["domain"]: r["split"] for r in rows} == SPLIT
    folders = {p.name for p in (DEFAULT_DATA / VAULTS).iterdir() if p.is_dir()}
    assert folders == set(SPLIT)


def test_every_claim_names_a_vault_document_and_quotes_it(rows: Rows) -> None:
    for r in rows:
        document = DEFAULT_DATA / VAULTS / r["domain"] / r["document"]
        assert document.is_file(), r["id"]
        assert r["anchor"] and r["anchor"] in document.read_text(encoding="utf-8"), r["id"]
        assert r["claim"] and r["note"], r["id"]


def test_ids_and_claims_are_unique(rows: Rows) -> None:
    assert len({r["id"] for r in rows}) == len(rows)
    assert len({r["claim"].lower() for r in rows}) == len(rows)


def test_counts_labels_and_balance(rows: Rows) -> None:
    assert len(rows) >= 600
    for r in rows:
        if r["label"] == FABRICATED:
            assert r["type"] in FABRICATION_TYPES and r["support"] in SUPPORTS, r["id"]
        else:
            assert r["label"] == FAITHFUL, r["id"]
            assert r["type"] in FAITHFUL_TYPES and r["support"] == "", r["id"]
    fabricated = sum(r["label"] == FABRICATED for r in rows)
    assert 0.45 <= fabricated / len(rows) <= 0.55


def test_every_type_is_in_every_split(rows: Rows) -> None:
    present = Counter((r["split"], r["type"]) for r in rows)
    for split in (DEV, TEST):
        for kind in (*FABRICATION_TYPES, *FAITHFUL_TYPES):
            assert present[(split, kind)] >= 3, (split, kind)
    per_domain = Counter((r["domain"], r["type"]) for r in rows)
    for domain in SPLIT:
        for kind in FABRICATION_TYPES:
            assert per_domain[(domain, kind)] >= 3, (domain, kind)


def test_each_vault_has_tables_and_conditions() -> None:
    for domain in SPLIT:
        documents = sorted((DEFAULT_DATA / VAULTS / domain).glob("*.md"))
        assert 2 <= len(documents) <= 3, domain
        text = "\n".join(d.read_text(encoding="utf-8") for d in documents).lower()
        assert "|---|" in text, domain
        conditions = [w for w in ("unless", "only", "except", "provided", "if") if f" {w} " in text]
        assert len(conditions) >= 3, (domain, conditions)
        assert " must " in text and " may " in text, domain


def test_no_fabrication_is_a_sentence_of_its_vault(rows: Rows) -> None:
    for domain in SPLIT:
        folder = DEFAULT_DATA / VAULTS / domain
        text = " ".join(p.read_text(encoding="utf-8") for p in folder.glob("*.md"))
        text = " ".join(text.split())
        for r in rows:
            if r["domain"] == domain and r["label"] == FABRICATED:
                assert r["claim"].rstrip(".").lower() not in text.lower(), r["id"]


def test_no_data_file_is_large() -> None:
    sizes = [p.stat().st_size for p in DEFAULT_DATA.rglob("*") if p.is_file()]
    assert max(sizes) < 1_000_000
    assert sum(sizes) < 1_500_000


def test_problems_catches_a_broken_row(rows: Rows) -> None:
    broken = [dict(r) for r in rows]
    broken[0]["anchor"] = "a sentence no vault contains"
    dropped = [r for r in broken if not (r["split"] == TEST and r["type"] == "agent")]
    found = problems(dropped, Path(DEFAULT_DATA))
    assert any("anchor not in" in p for p in found)
    assert any("no agent claim in test" in p for p in found)


# ----------------------------------------------------------------------------- the figures


def _scored(split: str, domain: str, kind: str, flagged: bool, support: str = "") -> Scored:
    label = FABRICATED if kind in FABRICATION_TYPES else FAITHFUL
    return Scored(
        id=f"{domain}.{kind}.{flagged}",
        domain=domain,
        split=split,
        type=kind,
        label=label,
        support=support if label == FABRICATED else "",
        verdict="contradicted" if flagged else "supported",
        probability=0.9 if flagged else 0.1,
        decided_by="model",
        flagged=flagged,
        in_evidence=True,
    )


def test_figures_on_a_tiny_outcome_list() -> None:
    scored = [
        _scored(DEV, "a", "comparator", True, "contradicted"),
        _scored(DEV, "a", "comparator", False, "contradicted"),
        _scored(DEV, "a", "added_fact", True, "unsupported"),
        _scored(DEV, "b", "agent", False, "contradicted"),
        _scored(DEV, "a", "reworded", False),
        _scored(DEV, "b", "reworded", True),
        _scored(DEV, "b", "table_row", False),
        _scored(DEV, "b", "fraction", False),
        _scored(TEST, "c", "modality", True, "contradicted"),
        _scored(TEST, "c", "unit_restated", False),
    ]
    result = by_split(scored)
    assert list(result) == [DEV, TEST]
    dev = result[DEV]
    assert (dev["claims"], dev["fabricated"], dev["faithful"]) == (8, 4, 4)
    assert dev["recall"] == pytest.approx(0.5)
    assert dev["false_alarm_rate"] == pytest.approx(0.25)
    assert dev["balanced_accuracy"] == pytest.approx(0.625)
    assert dev["flag_everything"] == FLAG_EVERYTHING
    order = ["comparator", "agent", "added_fact", "reworded", "fraction", "table_row"]
    assert list(dev["per_type"]) == order
    comparator = dev["per_type"]["comparator"]
    assert (comparator["n"], comparator["flagged"], comparator["share"]) == (2, 1, 0.5)
    assert comparator["verdicts"] == {"contradicted": 1, "supported": 1}
    assert dev["per_type"]["reworded"]["share"] == pytest.approx(0.5)
    assert dev["per_domain"]["a"]["recall"] == pytest.approx(2 / 3)
    assert dev["per_domain"]["a"]["false_alarm_rate"] == 0.0
    assert dev["per_domain"]["b"]["recall"] == 0.0
    assert dev["per_domain"]["b"]["false_alarm_rate"] == pytest.approx(1 / 3)
    assert dev["per_support"]["contradicted"] == {"n": 3, "recall": pytest.approx(1 / 3)}
    assert dev["per_support"]["unsupported"] == {"n": 1, "recall": 1.0}
    test = result[TEST]
    assert (test["recall"], test["false_alarm_rate"], test["balanced_accuracy"]) == (1, 0, 1)
    assert "unsupported" not in test["per_support"]


def test_figures_without_one_label() -> None:
    only_faithful = figures([_scored(TEST, "c", "reworded", False)])
    assert only_faithful["recall"] is None and only_faithful["balanced_accuracy"] is None
    assert only_faithful["false_alarm_rate"] == 0.0
