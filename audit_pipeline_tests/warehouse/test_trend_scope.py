"""Trends compare like with like (issue 23 item 6, migration 17): full audits of a target only.

A partial audit (a few prompts, risk 0) and an interactive validation (no risk) sit between two
full audits of ``vault_bot``; neither may enter ``v_trend``, the notebook's comparison or the
report's previous audit, and the validation gets its own view.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from audit_pipeline import analysis
from audit_pipeline.reports.data import load_report_data
from audit_pipeline.warehouse import store
from audit_pipeline.warehouse.migrations import LATEST_VERSION, MIGRATIONS
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.reports.builders import AuditBuilder, write_all

FIRST, PARTIAL, LATEST = (
    "20261116T080000Z-vault_bot-aaaa1111",
    "20261118T080000Z-vault_bot-bbbb2222",
    "20261120T080000Z-vault_bot-cccc3333",
)


def _audit(audit_id: str, day: int, risk: float, scope: str = "full") -> AuditBuilder:
    audit = AuditBuilder(
        audit_id,
        started_at=datetime(2026, 11, day, 8, 0, tzinfo=UTC),
        decision="warn",
        risk=risk,
        scope=scope,
    )
    audit.turn("ENC-002", "encryption", "How often are keys rotated?", "Annually.")
    audit.claim("ENC-002", "Annually.", "supported")
    audit.assertion("ENC-002", "required_signals", True)
    return audit


@pytest.fixture
def warehouse(tmp_path: Path) -> Warehouse:
    target = Warehouse(tmp_path / "audit.duckdb")
    write_all(
        target,
        _audit(FIRST, 16, 0.2),
        _audit(PARTIAL, 18, 0.0, scope="partial"),
        _audit(LATEST, 20, 0.1),
    )
    # A validation as the service writes it: its audit row has no scope of its own.
    target.execute(
        "INSERT INTO audits (audit_id, started_at, finished_at, status, target, suite)"
        " VALUES ('v1', TIMESTAMPTZ '2026-11-19 08:00:00+00', now(), 'finished', 'interactive',"
        " 'interactive')"
    )
    target.execute(
        "INSERT INTO responses (audit_id, prompt_id, turn, target, prompt, prompt_hash, response,"
        " attempts, from_cache, started_at, finished_at) VALUES ('v1', 'validation-1', 0,"
        " 'interactive', 'Is data encrypted?', 'h', 'Yes, with AES-256.', 1, false, now(), now())"
    )
    return target


def test_the_trend_and_the_summary_leave_out_partial_and_interactive_audits(
    warehouse: Warehouse,
) -> None:
    trend = warehouse.query("SELECT target, audits, mean_risk FROM v_trend")
    assert trend.values.tolist() == [["vault_bot", 2, pytest.approx(0.15)]]
    summary = warehouse.query("SELECT audit_id, scope FROM v_audit_summary ORDER BY audit_id")
    assert dict(summary.values.tolist()) == {FIRST: "full", PARTIAL: "partial", LATEST: "full"}
    validations = warehouse.query("SELECT audit_id, question FROM v_interactive_validations")
    assert validations.values.tolist() == [["v1", "Is data encrypted?"]]


def test_the_report_and_the_notebook_compare_with_the_previous_full_audit(
    warehouse: Warehouse,
) -> None:
    data = load_report_data(warehouse, LATEST)
    assert data.previous_audit_id == FIRST
    assert [point.audit_id for point in data.trend] == [FIRST, LATEST]
    summary = warehouse.query("SELECT * FROM v_audit_summary")
    assert analysis.last_audits(summary, "vault_bot") == [FIRST, LATEST]


def test_migration_17_backfills_the_scope_of_earlier_audits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = Warehouse(tmp_path / "old.duckdb")
    monkeypatch.setattr(store, "MIGRATIONS", MIGRATIONS[:16])
    old.migrate()
    # The suite version has two prompts: FIRST asked both, PARTIAL one.
    first = _audit(FIRST, 16, 0.2).turn("ENC-009", "encryption", "Another question?", "Yes.")
    audits = first, _audit(PARTIAL, 18, 0.0)
    old.replace_many(
        [
            ("suite_prompts", first.suite_rows, None),
            *(
                # written as before migration 17: no scope column yet
                (
                    "audits",
                    [{k: v for k, v in a.audit_row().items() if k != "scope"}],
                    {"audit_id": a.audit_id},
                )
                for a in audits
            ),
            *(("responses", a.responses, {"audit_id": a.audit_id}) for a in audits),
        ]
    )
    old.execute(
        "INSERT INTO audits (audit_id, started_at, status, target, suite)"
        " VALUES ('v0', now(), 'finished', 'interactive', 'interactive')"
    )
    monkeypatch.setattr(store, "MIGRATIONS", MIGRATIONS)
    assert old.migrate() == LATEST_VERSION
    scopes = old.query("SELECT audit_id, scope FROM audits ORDER BY audit_id")
    assert dict(scopes.values.tolist()) == {
        FIRST: "full",
        PARTIAL: "partial",
        "v0": "interactive",
    }
