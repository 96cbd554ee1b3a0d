"""Two audits of the same target in a temporary warehouse: last week's and this week's."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.reports.builders import write_all
from audit_pipeline_tests.reports.sample_audits import build_current, build_previous


@pytest.fixture
def warehouse(tmp_path: Path) -> Warehouse:
    store = Warehouse(tmp_path / "audit.duckdb")
    write_all(store, build_previous(), build_current())
    return store
