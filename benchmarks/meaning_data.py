"""The meaning benchmark's data: eight small policy vaults and labelled answer claims that get
the meaning wrong (or restate it faithfully) without changing a single specific.

    python -m benchmarks.meaning_data [--data benchmarks/data/meaning]   # writes claims.jsonl

What it measures. Issue 31: a verifier that grounds numbers, dates and names still passes an
answer that drops or inverts a condition, turns "before" into "after" or "at least" into "at
most", says "every row" where a table says two of three, makes a permission an obligation,
names the wrong party as liable, states a rule for one named case as general, states the
exception as the rule, adds a plausible fact the vault never states, or gives a quantity in
another, non-equivalent unit; and it flags faithful answers that restate a fact in other words
or units. Each of those failures is a ``FABRICATION_TYPES`` entry here; each way of restating
a fact faithfully is a ``FAITHFUL_TYPES`` entry.

How the data is written. By hand, as explicit files, not generated from facts the way
``specifics_data`` is: a meaning-level edit is a different operation on every sentence (which
clause carries the condition, which party is swapped, which row breaks the "every"), so a
template would either restrict the edits to a few shapes a rule could learn, or produce
sentences nobody would write. Each domain has

- a vault, ``vaults/<domain>/*.md``: two or three policy documents of an invented
  organisation, with at least one table and several conditions, exceptions, obligations and
  named parties, written in the register of real policies;
- a claims file, ``claims/<domain>.yaml``: single sentences an assistant might answer with.
  Each names its ``type``, the ``doc`` it is about, an ``anchor`` (a verbatim span of that
  document: what the vault says), a ``note`` (what the vault says against what the claim
  says) and, for a fabrication, its ``support``: ``contradicted`` (the vault says otherwise)
  or ``unsupported`` (the vault does not say it).

Every domain has 4 fabrications of each type (40) and about 40 faithful claims over all the
faithful types, so each split holds every type. The claims were written without reading how
the verifier decides (``audit_pipeline/verification``): the benchmark is the measurement the
meaning rules of issue 31 are written against, so no claim is shaped to pass or fail a rule.
A fabrication is wrong as an auditor reads the policy: a deadline stated as a limit, a
condition left off a right, a rule stated for every case where the vault states it for one.

The split. Five development domains and three test domains (``SPLIT``), drawn with
``random.Random(31).sample`` over the eight domain names before any claim was written and
committed before any rule: rules, thresholds and word lists may come only from development
failures, and the test domains are scored once at the end.

``python -m benchmarks.meaning_data`` checks the sources (``check``: every anchor is in its
document, every type is present in every split, no fabrication is a sentence of the vault,
...) and writes ``claims.jsonl``: one row per claim with ``id`` (``domain.type.n``),
``domain``, ``split``, ``claim``, ``label`` (``fabricated`` | ``faithful``), ``type``,
``support`` (empty for faithful claims), ``note``, ``document`` and ``anchor``.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "meaning"
VAULTS = "vaults"
SOURCES = "claims"
CLAIMS_FILE = "claims.jsonl"

DEV, TEST = "dev", "test"
# The test domains: random.Random(31).sample(names, 3), names in the order (hr-leave,
# pharmacy-leaflet, home-insurance, tenancy, software-licence, school-policy, food-safety,
# bank-account), drawn before any claim was written.
SPLIT: dict[str, str] = {
    "pharmacy-leaflet": DEV,
    "home-insurance": DEV,
    "software-licence": DEV,
    "school-policy": DEV,
    "food-safety": DEV,
    "hr-leave": TEST,
    "tenancy": TEST,
    "bank-account": TEST,
}
DEV_DOMAINS = tuple(d for d, s in SPLIT.items() if s == DEV)
TEST_DOMAINS = tuple(d for d, s in SPLIT.items() if s == TEST)

FABRICATED, FAITHFUL = "fabricated", "faithful"
SUPPORTS = ("contradicted", "unsupported")

FABRICATION_TYPES: dict[str, str] = {
    "condition_dropped": "a condition or exclusion left off ('only before the deadline' -> "
    "'at any time')",
    "condition_inverted": "a condition or exception inverted ('does not apply when X' -> "
    "'applies even when X'; if / unless / only if / provided / except)",
    "comparator": "direction or comparator changed (before/after, at least/at most, up to, "
    "no later than, more/less)",
    "quantifier": "quantifier or scope changed (two of three rows -> every one; all / some / "
    "none / only; one per flat -> one per tenant)",
    "modality": "obligation changed (may/must, need not, is not obliged, must not)",
    "agent": "the responsible party swapped (who pays, who is liable, who must act or decide)",
    "overgeneralised": "a rule stated for one named case stated in general",
    "exception_as_rule": "the exception the vault states stated as the rule",
    "added_fact": "a plausible fact the vault states nowhere",
    "unit_mismatch": "a quantity in another, non-equivalent unit (kg/lb, °C/°F, miles/km, "
    "days/working days, a month/a year)",
}
FAITHFUL_TYPES: dict[str, str] = {
    "reworded": "the fact in other words",
    "reordered": "clauses reordered, or active and passive swapped",
    "unit_restated": "a value in an equivalent unit or format (12 months = a year, "
    "1 TB = 1,000 GB, 22:00 = 10 pm)",
    "number_word": "numbers as words or phrases ('fourteen', 'a fortnight', 'half an hour')",
    "fraction": "a fraction, ratio or percentage that follows from the vault (a fifth, 50%)",
    "negation_word": "the negation restated (nobody / no one / none / never / neither)",
    "condition_restated": "the condition kept in another form (unless <-> only if, provided)",
    "comparator_restated": "the comparator kept in other words (at least = no less than)",
    "quantifier_restated": "the scope kept in other words (two rows named, 'only', 'every')",
    "modality_restated": "the obligation kept in other words (must = is required to)",
    "agent_restated": "the same party in another construction (passive voice)",
    "table_row": "a faithful reading of a table row or cell",
}
TYPES = (*FABRICATION_TYPES, *FAITHFUL_TYPES)
MIN_CLAIMS = 600
PER_FABRICATION_TYPE = 4  # in every domain

Row = dict[str, str]


def label_of(kind: str) -> str:
    if kind in FABRICATION_TYPES:
        return FABRICATED
    if kind in FAITHFUL_TYPES:
        return FAITHFUL
    raise ValueError(f"unknown claim type {kind!r}")


def _source(data: Path, domain: str) -> dict[str, Any]:
    with open(data / SOURCES / f"{domain}.yaml", encoding="utf-8") as handle:
        source = yaml.safe_load(handle)
    if source.get("domain") != domain:
        raise ValueError(f"{domain}.yaml names domain {source.get('domain')!r}")
    return source


def read_sources(data: Path = DEFAULT_DATA) -> list[Row]:
    """Every hand-written claim as a flat row, domain by domain in ``SPLIT`` order, with its
    id (``domain.type.n``, n counting within the domain and type) and split."""
    rows: list[Row] = []
    for domain, split in SPLIT.items():
        source = _source(data, domain)
        documents: dict[str, str] = source["documents"]
        numbered: Counter[str] = Counter()
        for item in source["claims"]:
            kind = item["type"]
            label = label_of(kind)
            numbered[kind] += 1
            rows.append(
                {
                    "id": f"{domain}.{kind}.{numbered[kind]}",
                    "domain": domain,
                    "split": split,
                    "claim": item["claim"].strip(),
                    "label": label,
                    "type": kind,
                    "support": item.get("support", "") if label == FABRICATED else "",
                    "note": item["note"].strip(),
                    "document": documents[item["doc"]],
                    "anchor": item["anchor"].strip(),
                }
            )
    return rows


def vault_texts(data: Path = DEFAULT_DATA) -> dict[tuple[str, str], str]:
    """(domain, document name) -> the document's Markdown."""
    return {
        (path.parent.name, path.name): path.read_text(encoding="utf-8")
        for path in sorted((data / VAULTS).glob("*/*.md"))
    }


def _fold(text: str) -> str:
    return " ".join(text.lower().split())


def problems(rows: Sequence[Row], data: Path = DEFAULT_DATA) -> list[str]:
    """What breaks the benchmark's own rules (empty when nothing does)."""
    found: list[str] = []
    texts = vault_texts(data)
    everything = _fold("\n".join(texts.values()))
    domains = {d for d, _ in texts}
    if domains != set(SPLIT):
        found.append(f"vault folders {sorted(domains)} are not the split's {sorted(SPLIT)}")
    if (len(DEV_DOMAINS), len(TEST_DOMAINS)) != (5, 3):
        found.append(f"split is {len(DEV_DOMAINS)} dev + {len(TEST_DOMAINS)} test domains")
    if len(rows) < MIN_CLAIMS:
        found.append(f"{len(rows)} claims, fewer than {MIN_CLAIMS}")
    ids = Counter(r["id"] for r in rows)
    found += [f"id {k!r} used {n} times" for k, n in ids.items() if n > 1]
    claims = Counter(_fold(r["claim"]) for r in rows)
    found += [f"claim written twice: {c!r}" for c, n in claims.items() if n > 1]
    for r in rows:
        where = (r["domain"], r["document"])
        if where not in texts:
            found.append(f"{r['id']}: no document {r['document']!r} in {r['domain']}")
            continue
        if r["anchor"] not in texts[where]:
            found.append(f"{r['id']}: anchor not in {r['document']}: {r['anchor']!r}")
        if _fold(r["claim"].rstrip(".")) in everything:
            found.append(f"{r['id']}: the claim is a sentence of the vault")
        if r["label"] == FABRICATED and r["support"] not in SUPPORTS:
            found.append(f"{r['id']}: support {r['support']!r} is not one of {SUPPORTS}")
        if r["type"] == "added_fact" and r["support"] != "unsupported":
            found.append(f"{r['id']}: an added fact is unsupported")
    per_domain = Counter((r["domain"], r["type"]) for r in rows)
    for domain in SPLIT:
        for kind in FABRICATION_TYPES:
            if per_domain[(domain, kind)] != PER_FABRICATION_TYPE:
                found.append(
                    f"{domain}: {per_domain[(domain, kind)]} {kind} claims, "
                    f"not {PER_FABRICATION_TYPE}"
                )
    per_split = Counter((r["split"], r["type"]) for r in rows)
    for split in (DEV, TEST):
        found += [f"no {kind} claim in {split}" for kind in TYPES if not per_split[(split, kind)]]
    fabricated = sum(r["label"] == FABRICATED for r in rows)
    if rows and not 0.45 <= fabricated / len(rows) <= 0.55:
        found.append(f"{fabricated} of {len(rows)} claims are fabrications")
    return found


def check(rows: Sequence[Row], data: Path = DEFAULT_DATA) -> None:
    if found := problems(rows, data):
        raise ValueError("the meaning benchmark breaks its rules:\n  " + "\n  ".join(found))


def render(rows: Sequence[Row]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def write(data: Path = DEFAULT_DATA) -> list[Row]:
    """Check the hand-written sources and write ``claims.jsonl`` from them."""
    rows = read_sources(data)
    check(rows, data)
    (data / CLAIMS_FILE).write_text(render(rows), encoding="utf-8")
    return rows


def load_claims(data: Path = DEFAULT_DATA) -> list[Row]:
    """The rows of ``claims.jsonl``."""
    lines = (data / CLAIMS_FILE).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args(argv)
    rows = write(args.data)
    counts = Counter((r["type"], r["split"]) for r in rows)
    labels = Counter((r["label"], r["split"]) for r in rows)
    print(f"{len(rows)} claims in {args.data / CLAIMS_FILE}")
    print(f"  dev domains:  {', '.join(DEV_DOMAINS)}")
    print(f"  test domains: {', '.join(TEST_DOMAINS)}")
    print(f"  {'type':22} {'dev':>4} {'test':>4}")
    for label, kinds in ((FABRICATED, FABRICATION_TYPES), (FAITHFUL, FAITHFUL_TYPES)):
        for kind in kinds:
            print(f"  {kind:22} {counts[(kind, DEV)]:4d} {counts[(kind, TEST)]:4d}")
        print(f"  {label + ' in all':22} {labels[(label, DEV)]:4d} {labels[(label, TEST)]:4d}")


if __name__ == "__main__":
    main()
