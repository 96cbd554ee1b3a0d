"""``audit-pipeline audits``: the recorded audits, one row each, as the warehouse holds them.

The decision column is the release decision with the rule that set it, the same pair the
audit's CLI run ended on, its ``--json``, its report and its Dagster check
``release_decision``; numbers are rounded as the console rounds them everywhere. An audit with
no decision (running, or failed) shows ``n/a``, and a failed one says in the rule column which
step failed and why.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from audit_pipeline.commands.console import table
from audit_pipeline.commands.preflight import UsageError
from audit_pipeline.warehouse.store import Warehouse, WarehouseError, or_none

AUDIT_COLUMNS = ("audit_id", "target", "suite", "status", "decision", "rule", "risk", "started")


def audit_rows(warehouse: Warehouse, target: str | None, limit: int) -> list[dict[str, Any]]:
    """The latest ``limit`` audits (of ``target``), newest first, formatted for the console."""
    # Every column: a warehouse an older version wrote (before migration 18) has no failure.
    sql = "SELECT * FROM audits"
    params: list[Any] = []
    if target:
        sql += " WHERE target = ?"
        params.append(target)
    sql += " ORDER BY started_at DESC LIMIT ?"
    params.append(limit)
    try:
        rows = warehouse.query(sql, params).to_dict("records")
    except WarehouseError as error:
        raise UsageError(str(error)) from None
    for row in rows:
        row["rule"] = row.get("decision_rule")
        risk = or_none(row.pop("risk"))
        row["risk"] = "n/a" if risk is None else f"{risk:.3f}"
        row["started"] = f"{row.pop('started_at'):%Y-%m-%d %H:%M:%S}"
        row["decision"] = or_none(row["decision"]) or "n/a"
        row["rule"] = or_none(row["rule"])
        step, failure = or_none(row.get("failed_step")), or_none(row.get("failure"))
        if row["status"] == "failed":  # the table cuts it; audits.failure holds all of it
            row["rule"] = f"failed in {step or 'the run'}: {failure or 'no reason recorded'}"
    return rows


def audits_command(args: argparse.Namespace, warehouse: Warehouse) -> int:
    table(audit_rows(warehouse, args.target, args.limit), AUDIT_COLUMNS, sys.stdout)
    return 0
