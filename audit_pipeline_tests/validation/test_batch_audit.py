"""A real audit (the whole Dagster graph over the recorded answers) stores Self-RAG checks and
citation classes per answer, and strict_citations fails answers that are not fully cited."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit_pipeline.commands.run_audit import RunOptions, run_audit
from audit_pipeline.config import load_config
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.helpers import FAITHFUL_IDS, HALLUCINATED_IDS, write_audit_config

pytestmark = pytest.mark.slow


def _audit(root: Path, index: Path, **sections: object):  # type: ignore[no-untyped-def]
    config_path = write_audit_config(root, index, **sections)
    config = load_config(config_path)
    ids = (*FAITHFUL_IDS, *HALLUCINATED_IDS)
    result = run_audit(config_path, config, RunOptions(target="recorded", ids=ids))
    assert result.success, result.errors
    html = Path(result.report).read_text(encoding="utf-8") if result.report else ""
    assert "Confidence" in html  # the report's confidence column
    return Warehouse(config.duckdb_path), result.outcome.audit_id


def test_audit_stores_self_rag_checks_per_answer(audited_config: Path) -> None:
    """Read from the session's audited workspace: its first audit is this one (the recorded
    answers, default settings) with ADV-001 besides, so no audit of its own is needed."""
    config = load_config(audited_config)
    store = Warehouse(config.duckdb_path)
    audit_id = store.scalar("SELECT audit_id FROM audits ORDER BY started_at LIMIT 1")
    html = (config.reports_dir / audit_id / "report.html").read_text(encoding="utf-8")
    assert "Confidence" in html  # the report's confidence column
    rows = store.query(
        "SELECT * FROM response_validations WHERE audit_id = ? ORDER BY prompt_id", [audit_id]
    ).set_index("prompt_id")
    assert set(rows.index) == {*FAITHFUL_IDS, *HALLUCINATED_IDS, "ADV-001"}
    assert rows["confidence"].between(0, 1).all()
    assert set(rows["recommendation"]) <= {"accept", "retry", "reject"}
    assert set(rows["citation_class"].dropna()) <= {"fully_cited", "partially_cited", "uncited"}
    faithful = rows.loc[list(FAITHFUL_IDS), "confidence"].mean()
    hallucinated = rows.loc[list(HALLUCINATED_IDS), "confidence"].mean()
    assert faithful > hallucinated
    assert (rows.loc[list(HALLUCINATED_IDS), "recommendation"] != "accept").all()
    strict = store.scalar(
        "SELECT count(*) FROM assertion_results WHERE audit_id = ? AND assertion = "
        "'citation_class'",
        [audit_id],
    )
    assert strict == 0  # strict_citations is off by default


def test_strict_citations_fail_answers_that_are_not_fully_cited(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    store, audit_id = _audit(tmp_path, sample_index_dir, validation={"strict_citations": True})
    checks = store.query(
        "SELECT a.prompt_id, a.passed, v.citation_class FROM assertion_results a"
        " JOIN response_validations v USING (audit_id, prompt_id, turn)"
        " WHERE a.audit_id = ? AND a.assertion = 'citation_class'",
        [audit_id],
    )
    assert len(checks) > 0
    assert (checks["passed"] == (checks["citation_class"] == "fully_cited")).all()
    assert not checks["passed"].all()
