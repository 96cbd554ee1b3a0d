"""``audit-pipeline audits``: the recorded audits, one row each, as the warehouse holds them.

The decision column is the release decision with the rule that set it, the same pair the
audit's CLI run ended on, its ``--json``, its report and its Dagster check
``release_decision``; numbers are rounded as the console rounds them everywhere.
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
    sql = (
        "SELECT audit_id, target, suite, status, decision, decision_rule AS rule, risk,"
        " started_at FROM audits"
    )
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
        risk = or_none(row.pop("risk"))
        row["risk"] = "n/a" if risk is None else f"{risk:.3f}"
        row["started"] = f"{row.pop('started_at'):%Y-%m-%d %H:%M:%S}"
        row["rule"] = or_none(row["rule"])
    return rows


def audits_command(args: argparse.Namespace, warehouse: Warehouse) -> int:
    table(audit_rows(warehouse, args.target, args.limit), AUDIT_COLUMNS, sys.stdout)
    return 0
