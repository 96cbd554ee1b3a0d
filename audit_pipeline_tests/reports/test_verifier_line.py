"""The report names the verifier that judged the audit and, for the shipped local model, its
measured figures, so a reader knows how far to trust a verdict."""

from __future__ import annotations

from pathlib import Path

from audit_pipeline.reports.write import ReportPaths, write_report
from audit_pipeline.verification.scorer import LocalModel
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.reports.builders import AuditBuilder, write_all

AUDIT_ID = "20261124T080000Z-vault_bot-dddd4444"


def _report(tmp_path: Path, verifier: str, version: str) -> ReportPaths:
    audit = AuditBuilder(AUDIT_ID)
    audit.turn("RET-001", "retention", "How long are logs kept?", "Logs are kept for 90 days.")
    audit.claim(
        "RET-001", "Logs are kept for 90 days.", "supported", verifier=verifier,
        verifier_version=version,
    )  # fmt: skip
    store = Warehouse(tmp_path / "w.duckdb")
    write_all(store, audit)
    return write_report(store, AUDIT_ID, tmp_path / "out")


def test_shipped_local_model_is_named_with_its_measured_figures(tmp_path: Path) -> None:
    shipped = LocalModel.load()
    measured = shipped.training["measured"]
    paths = _report(tmp_path, "local", shipped.version)
    page = paths.html.read_text(encoding="utf-8")
    text = paths.markdown.read_text(encoding="utf-8")
    expected = f"F1 {measured['f1']:.2f}, balanced accuracy {measured['balanced_accuracy']:.2f}"
    assert f"local {shipped.version}" in page
    assert expected in page
    assert expected in text


def test_other_verifiers_are_named_without_borrowed_figures(tmp_path: Path) -> None:
    paths = _report(tmp_path, "llm", "judge-prompt-1")
    page = paths.html.read_text(encoding="utf-8")
    assert "llm judge-prompt-1" in page
    assert "balanced accuracy" not in page
