"""The validation stage of a batch audit against the warehouse: read each answer's stored
claims, judge the answers (``validation/batch.py``), store one ``response_validations`` row per
answered turn."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from audit_pipeline.assertions.assertion_settings import AssertionSettings
from audit_pipeline.assertions.vault_catalog import VaultCatalog
from audit_pipeline.records.responses import ResponseRecord
from audit_pipeline.validation.batch import validate_answers
from audit_pipeline.validation.settings import ValidationSettings
from audit_pipeline.warehouse.claim_history import stored_claims
from audit_pipeline.warehouse.store import Warehouse


def validate_audit(
    store: Warehouse,
    audit_id: str,
    records: Sequence[ResponseRecord],
    *,
    embedder: Any,
    retriever: Any | None,
    catalog: VaultCatalog,
    rules: AssertionSettings,
    settings: ValidationSettings,
    top_k: int = 5,
    judge_api_key: str | None = None,
) -> list[dict[str, Any]]:
    """Compute and store the ``response_validations`` rows of one audit; returns them."""
    with store.reading():
        claims = stored_claims(store, audit_id)
    rows = validate_answers(
        audit_id,
        records,
        claims,
        embedder=embedder,
        retriever=retriever,
        catalog=catalog,
        rules=rules,
        settings=settings,
        top_k=top_k,
        judge_api_key=judge_api_key,
    )
    store.replace("response_validations", rows, {"audit_id": audit_id})
    return rows
