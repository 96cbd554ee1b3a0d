"""Validations recorded from many threads: each one whole in the warehouse, those that wait
for a write going together in the next transaction (one read snapshot each, not one per
validation)."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from audit_pipeline.claims import SentenceClaimExtractor
from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.service.interactive import ValidationRecorder
from audit_pipeline.validation.engine import AnswerValidator
from audit_pipeline.validation.settings import ValidationSettings
from audit_pipeline.verification import LocalVerifier
from audit_pipeline.warehouse.store import Rows, Warehouse
from audit_pipeline_tests.validation.sample_sources import BACKUP_SOURCES


class GatedWarehouse(Warehouse):
    """A real warehouse whose first write waits for a signal, and which counts its writes."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.writes = 0
        self.first_write_started = threading.Event()
        self.release = threading.Event()

    def replace_many(
        self,
        writes: Sequence[tuple[str, Rows, Mapping[str, Any] | None]],
        statements: Sequence[tuple[str, Sequence[Any]]] = (),
    ) -> int:
        self.writes += 1
        if self.writes == 1:
            self.first_write_started.set()
            self.release.wait(30)
        return super().replace_many(writes, statements)


def test_waiting_validations_are_written_together(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    validator = AnswerValidator(
        embedder=embedder,
        extractor=SentenceClaimExtractor(),
        verifier=LocalVerifier(embedder),
        settings=ValidationSettings(),
    )
    result = validator.validate(
        "How far back can we recover?", "Recovery is possible for 7 days.", BACKUP_SOURCES
    )
    store = GatedWarehouse(tmp_path / "audit.duckdb")
    store.migrate()
    recorder = ValidationRecorder(store, "config-hash")
    audit_ids: list[str] = []

    def record() -> None:
        audit_ids.append(recorder.record(result, datetime.now(UTC)))

    first = threading.Thread(target=record)
    first.start()
    assert store.first_write_started.wait(30)
    others = [threading.Thread(target=record) for _ in range(7)]
    for thread in others:
        thread.start()
    while len(recorder._pending) < 7:  # all seven wait behind the first write
        threading.Event().wait(0.01)
    store.release.set()
    for thread in [first, *others]:
        thread.join(30)

    assert store.writes == 2
    assert len(set(audit_ids)) == 8
    rows = store.query(
        "SELECT a.audit_id, a.status, count(v.label) AS verdicts FROM audits a"
        " JOIN claims c USING (audit_id) JOIN verdicts v USING (audit_id, claim_id)"
        " GROUP BY a.audit_id, a.status"
    )
    assert sorted(rows["audit_id"]) == sorted(audit_ids)
    assert set(rows["status"]) == {"finished"}
    assert set(rows["verdicts"]) == {len(result.claims)}
