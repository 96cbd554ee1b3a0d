"""What ``run --resume`` will redo, said before it starts.

A resumed audit keeps its id and replaces its rows stage by stage: the answers it already got
come back from the response cache (when the cache is on), the turns without one are asked, and
every later stage is computed again. A user resuming a failed audit wants to know that before
waiting for it, and why the audit stopped, in one line.
"""

from __future__ import annotations

from audit_pipeline.warehouse.store import Warehouse, or_none

REDONE = "claims, evidence, verdicts, assertions and the decision"


def resume_notice(warehouse: Warehouse, audit_id: str, use_cache: bool) -> str:
    """One line: how the audit ended, what it kept and what the resumed run redoes."""
    row = warehouse.query("SELECT * FROM audits WHERE audit_id = ?", [audit_id]).to_dict("records")[
        0
    ]
    if row["status"] == "failed":
        how = (
            f"failed in {or_none(row.get('failed_step')) or 'the run'}: "
            f"{or_none(row.get('failure')) or 'no reason recorded'}"
        )
    else:
        how = "stopped without a trace (its process was killed)"
    answered = int(
        warehouse.scalar(
            "SELECT count(*) FROM responses WHERE audit_id = ? AND error IS NULL",
            [audit_id],
        )
        or 0
    )
    if use_cache:
        kept = (
            f"its {answered} answer(s) come back from the response cache and only the turns "
            "without one are asked"
        )
    else:
        kept = "every turn is asked again (the response cache is off)"
    return f"resuming audit {audit_id}, which {how}; {kept}; redone: {REDONE}"
