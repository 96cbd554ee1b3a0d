"""The analysts' marks as an asset: the ``marks`` table as the verdicts read it.

Marks are written outside Dagster (``audit-pipeline mark``, ``POST /marks``, the served
report), so this asset records what there is when a run reads them: how many marks, how many
live, by label, the newest, and the verifier's precision on them. The ``verdicts`` asset
depends on it (the mark stage applies them), and the marks sensor (``automation.py``) starts
the ``rescore`` job when new marks arrive, so the UI shows marks -> verdicts -> gates ->
report for every re-scoring.
"""

from __future__ import annotations

from dagster import MaterializeResult, MetadataValue, asset

from audit_pipeline.defs.resources import WarehouseResource
from audit_pipeline.reports.marks_quality import quality_lines
from audit_pipeline.warehouse.mark_tables import marks_summary, verifier_quality


@asset(
    name="analyst_marks",
    group_name="marks",
    kinds={"duckdb"},
    description="Analysts' marks on verdicts (audit-pipeline mark, POST /marks, the served "
    "report): counts, live marks by label, and the verifier's precision on them. The "
    "verdicts apply the live ones; new marks start the rescore job (marks sensor).",
)
def analyst_marks(warehouse: WarehouseResource) -> MaterializeResult:
    store = warehouse.get()
    with store.reading():
        summary = marks_summary(store)
        quality = verifier_quality(store)
    return MaterializeResult(
        metadata={
            **summary,
            "on_marks": MetadataValue.md("\n\n".join(quality_lines(quality))),
        }
    )
