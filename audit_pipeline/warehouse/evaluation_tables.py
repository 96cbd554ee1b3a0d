"""Rows of the retrieval evaluation history (``retrieval_evals``, ``retrieval_eval_queries``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from audit_pipeline.warehouse.store import Warehouse, or_none


def new_eval_id(run_id: str | None = None) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return f"eval-{stamp}" + (f"-{run_id[:8]}" if run_id else "")


def previous_eval(
    warehouse: Warehouse, golden_hash: str, before_eval_id: str
) -> dict[str, Any] | None:
    """The latest earlier evaluation of the same golden set, shaped like ``to_dict()``."""
    frame = warehouse.query(
        "SELECT * FROM retrieval_evals WHERE golden_hash = ? AND eval_id <> ? AND eval_id = ("
        " SELECT arg_max(eval_id, evaluated_at) FROM retrieval_evals"
        " WHERE golden_hash = ? AND eval_id <> ?)",
        [golden_hash, before_eval_id, golden_hash, before_eval_id],
    )
    if frame.empty:
        return None
    out: dict[str, Any] = {"per_collection": {}}
    for row in frame.to_dict("records"):
        figures = {
            "queries": int(row["queries"]),
            "precision": row["precision_at_k"],
            "hit_precision": row["hit_precision"],
            "recall": row["recall_at_k"],
            "mrr": row["mrr"],
            "abstention_rate": row["abstention_rate"],
            "p95_latency_ms": row["p95_latency_ms"],
        }
        out.update(
            eval_id=row["eval_id"],
            config_hash=row["config_hash"],
            golden_hash=golden_hash,
            k=int(row["k"]),
        )
        if row["scope"] == "overall":
            out["overall"] = figures
        else:
            out["per_collection"][or_none(row["collection"])] = figures
    return out


def latest_eval(warehouse: Warehouse, before: datetime | None = None) -> dict[str, Any] | None:
    """The last overall evaluation (recorded before ``before``), for the audit report."""
    sql = "SELECT * FROM retrieval_evals WHERE scope = 'overall'"
    params: list[Any] = []
    if before is not None:
        sql += " AND evaluated_at <= ?"
        params.append(before)
    frame = warehouse.query(sql + " ORDER BY evaluated_at DESC LIMIT 1", params)
    return None if frame.empty else frame.to_dict("records")[0]
