"""Validations recorded in batches: the writer waits while more validations are under way,
then writes all that wait in one transaction, each one whole in the warehouse."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from audit_pipeline.claims import SentenceClaimExtractor
from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.service.interactive import ValidationRecorder
from audit_pipeline.validation.engine import AnswerValidator
from audit_pipeline.validation.settings import ValidationSettings
from audit_pipeline.verification.configured import local_chain
from audit_pipeline.warehouse.store import Rows, Warehouse
from audit_pipeline_tests.validation.sample_sources import BACKUP_SOURCES


class CountingWarehouse(Warehouse):
    """A real warehouse that counts its write transactions."""

    writes = 0

    def replace_many(
        self,
        writes: Sequence[tuple[str, Rows, Mapping[str, Any] | None]],
        statements: Sequence[tuple[str, Sequence[Any]]] = (),
        *,
        publish: bool = True,
    ) -> int:
        self.writes += 1
        return super().replace_many(writes, statements, publish=publish)


@pytest.fixture(scope="module")
def validator(embedder: SentenceTransformerEmbedder) -> AnswerValidator:
    return AnswerValidator(
        embedder=embedder,
        extractor=SentenceClaimExtractor(),
        verifier=local_chain(embedder),
        settings=ValidationSettings(),
    )


def test_validations_under_way_are_written_together(
    tmp_path: Path, validator: AnswerValidator
) -> None:
    answers = [f"Recovery is possible for {n} days. Snapshots run daily." for n in range(8)]
    results = [validator.validate("How far back?", a, BACKUP_SOURCES) for a in answers]
    store = CountingWarehouse(tmp_path / "audit.duckdb")
    store.migrate()
    under_way = threading.Event()
    under_way.set()
    recorder = ValidationRecorder(store, "config-hash", busy=under_way.is_set, linger_s=60)

    futures = [recorder.submit(result, datetime.now(UTC)) for result in results]
    time.sleep(0.3)
    assert store.writes == 0 and not any(future.done() for future in futures)
    under_way.clear()  # the burst is over: what waits is written at once
    audit_ids = [future.result(30) for future in futures]

    assert store.writes == 1
    snapshot = Warehouse(store.snapshot_path)  # published once the burst was written
    assert snapshot.scalar("SELECT count(*) FROM audits") == len(audit_ids)
    rows = store.query(
        "SELECT a.audit_id, a.status, r.response, count(v.label) AS verdicts FROM audits a"
        " JOIN responses r USING (audit_id) JOIN verdicts v USING (audit_id)"
        " GROUP BY a.audit_id, a.status, r.response"
    )
    recorded = {row["audit_id"]: row for row in rows.to_dict("records")}
    assert set(recorded) == set(audit_ids)
    for audit_id, answer, result in zip(audit_ids, answers, results, strict=True):
        assert recorded[audit_id]["response"] == answer
        assert recorded[audit_id]["status"] == "finished"
        assert recorded[audit_id]["verdicts"] == len(result.claims) == 2


def test_a_lone_validation_waits_no_longer_than_the_linger(
    tmp_path: Path, validator: AnswerValidator
) -> None:
    result = validator.validate("How far back?", "Recovery is possible for 7 days.", BACKUP_SOURCES)
    store = CountingWarehouse(tmp_path / "audit.duckdb")
    store.migrate()
    recorder = ValidationRecorder(store, "config-hash", busy=lambda: True, linger_s=0.2)
    audit_id = recorder.submit(result, datetime.now(UTC)).result(30)
    assert store.scalar("SELECT status FROM audits WHERE audit_id = ?", [audit_id]) == "finished"
