"""Judge tokens and cost in the warehouse: per verdict row, summed on the audit row.

Also the other column migration 6 adds to ``verdicts``: the claim-relative error spans.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from audit_pipeline.claims import make_claim
from audit_pipeline.records.audits import AuditRef
from audit_pipeline.records.claims import AuditClaim
from audit_pipeline.records.usage import LLMUsage
from audit_pipeline.records.verdicts import Label, Verdict
from audit_pipeline.warehouse import store
from audit_pipeline.warehouse.audit_tables import start_audit
from audit_pipeline.warehouse.migrations import LATEST_VERSION, MIGRATIONS
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline.warehouse.verdict_tables import judge_usage, write_claims, write_verdicts

AUDIT = "a1"
RESPONSE = "Alpha is one. Beta is two. Gamma is three."


def _claims() -> list[AuditClaim]:
    spans = [(0, 13), (14, 26), (27, 43)]
    return [
        AuditClaim(f"c{i}", "p1", 0, make_claim(RESPONSE, start, end, "sentence"), "sentences")
        for i, (start, end) in enumerate(spans)
    ]


def _verdict(usage: LLMUsage | None = None) -> Verdict:
    verdict = Verdict(Label.SUPPORTED, 0.9, "ok", (), "cascade", "1", "local")
    return verdict if usage is None else verdict.with_usage(usage)


def _warehouse(tmp_path: Path) -> Warehouse:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    warehouse.migrate()
    start_audit(
        warehouse,
        AuditRef(AUDIT, "bot", "suite", "h"),
        vault_hash=None,
        config_hash="c",
        dagster_run_id=None,
    )
    return warehouse


def test_verdict_rows_carry_usage_and_the_audit_row_sums_it(tmp_path: Path) -> None:
    warehouse = _warehouse(tmp_path)
    assert judge_usage(warehouse, AUDIT)["calls"] is None  # not verified yet
    verdicts = [
        _verdict(),
        _verdict(LLMUsage(1, 900, 60, 0.002)),
        _verdict(LLMUsage(2, 1800, 90, 0.004)),
    ]
    write_verdicts(warehouse, AUDIT, _claims(), verdicts)
    rows = warehouse.query(
        "SELECT judge_calls, prompt_tokens, completion_tokens, cost_usd FROM verdicts "
        "WHERE audit_id = ? ORDER BY claim_id",
        [AUDIT],
    )
    assert rows.values.tolist() == [[0, 0, 0, 0.0], [1, 900, 60, 0.002], [2, 1800, 90, 0.004]]
    assert judge_usage(warehouse, AUDIT) == {
        "calls": 3,
        "prompt_tokens": 2700,
        "completion_tokens": 150,
        "cost_usd": pytest.approx(0.006),
    }


def test_one_unpriced_call_makes_the_audit_cost_unknown(tmp_path: Path) -> None:
    warehouse = _warehouse(tmp_path)
    verdicts = [_verdict(), _verdict(LLMUsage(1, 900, 60, None)), _verdict(LLMUsage(1, 10, 5, 0.1))]
    write_verdicts(warehouse, AUDIT, _claims(), verdicts)
    assert warehouse.scalar("SELECT count(*) FROM verdicts WHERE cost_usd IS NULL") == 1
    assert judge_usage(warehouse, AUDIT) == {
        "calls": 2,
        "prompt_tokens": 910,
        "completion_tokens": 65,
        "cost_usd": None,
    }


def test_reverifying_replaces_the_audit_totals(tmp_path: Path) -> None:
    warehouse = _warehouse(tmp_path)
    write_verdicts(warehouse, AUDIT, _claims(), [_verdict(LLMUsage(1, 9, 9, 0.1))] * 3)
    write_verdicts(warehouse, AUDIT, _claims(), [_verdict()] * 3)
    assert judge_usage(warehouse, AUDIT) == {
        "calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost_usd": 0.0,
    }


def test_migration_6_leaves_earlier_rows_unknown_and_documents_the_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warehouse = Warehouse(tmp_path / "w.duckdb")
    monkeypatch.setattr(store, "MIGRATIONS", MIGRATIONS[:5])
    warehouse.migrate()
    warehouse.execute(
        "INSERT INTO audits (audit_id, started_at, status) VALUES ('old', now(), 'finished')"
    )
    warehouse.execute(
        "INSERT INTO verdicts (audit_id, claim_id, prompt_id, turn, label, verifier, "
        "verifier_version, decided_by) VALUES ('old', 'c', 'p', 0, 'supported', 'v', '1', 'judge')"
    )
    monkeypatch.setattr(store, "MIGRATIONS", MIGRATIONS)
    assert warehouse.migrate() == LATEST_VERSION
    assert warehouse.scalar("SELECT judge_calls IS NULL FROM verdicts") is True
    assert warehouse.scalar("SELECT error_spans IS NULL FROM verdicts") is True
    assert judge_usage(warehouse, "old") == dict.fromkeys(
        ("calls", "prompt_tokens", "completion_tokens", "cost_usd")
    )
    comment = warehouse.scalar(
        "SELECT comment FROM duckdb_columns() WHERE table_name = 'audits' "
        "AND column_name = 'judge_cost_usd'"
    )
    assert "NULL when any judge call could not be priced" in comment
    comment = warehouse.scalar(
        "SELECT comment FROM duckdb_columns() WHERE table_name = 'verdicts' "
        "AND column_name = 'error_spans'"
    )
    assert "claim-relative" in comment


def test_error_spans_round_trip_as_claim_relative_json(tmp_path: Path) -> None:
    warehouse = _warehouse(tmp_path)
    claims = _claims()
    flagged = replace(_verdict(), label=Label.CONTRADICTED, error_spans=((8, 11),))
    write_claims(warehouse, AUDIT, claims)
    write_verdicts(warehouse, AUDIT, claims, [_verdict(), flagged, _verdict()])

    rows = warehouse.query(
        "SELECT error_spans FROM verdicts WHERE audit_id = ? ORDER BY claim_id", [AUDIT]
    )
    assert [json.loads(raw) for raw in rows["error_spans"]] == [[], [[8, 11]], []]
    # Claim-relative: an analyst slices the claim text with it in plain SQL.
    wrong = warehouse.scalar(
        "SELECT c.text[json_extract(v.error_spans, '$[0][0]')::INT + 1"
        " : json_extract(v.error_spans, '$[0][1]')::INT]"
        " FROM verdicts v JOIN claims c USING (audit_id, claim_id) WHERE v.claim_id = 'c1'"
    )
    assert wrong == "two"


def test_the_claim_view_shows_error_spans(tmp_path: Path) -> None:
    warehouse = _warehouse(tmp_path)
    claims = _claims()
    flagged = replace(_verdict(), label=Label.CONTRADICTED, error_spans=((8, 11),))
    write_claims(warehouse, AUDIT, claims)
    write_verdicts(warehouse, AUDIT, claims, [_verdict(), flagged, _verdict()])

    rows = warehouse.query(
        "SELECT label, error_spans FROM v_claim_verdicts WHERE audit_id = ? ORDER BY claim_id",
        [AUDIT],
    )
    assert [json.loads(raw) for raw in rows["error_spans"]] == [[], [[8, 11]], []]
    comment = warehouse.scalar(
        "SELECT comment FROM duckdb_views() WHERE view_name = 'v_claim_verdicts'"
    )
    assert "error spans" in comment
