"""``POST /evaluate``: run an audit and answer in seed 002's shape.

The audit is the same in-process Dagster run as ``audit-pipeline run``; the reply carries the
risk as ``score``, the decision, claim counts by label and one detail per claim, plus the
audit id so the full result can be read from the warehouse or the report. A configuration the
request names must lie under the served directory; what is wrong with it is said without
quoting it (``ConfigError.summary``): the endpoint must not become a way to read files.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from audit_pipeline.commands.preflight import UsageError, check_run
from audit_pipeline.config import ConfigError, load_config
from audit_pipeline.service.errors import Failed, NotFound, ServiceError
from audit_pipeline.warehouse.store import Warehouse, or_none


def resolve_config(base: Path, default: Path, config_path: str | None) -> Path:
    """The configuration to use: the server's own, or a file under the server's directory
    (a request never makes the server read files elsewhere). ``config_path`` holds no
    control character (``requests.check_evaluate``)."""
    if config_path is None:
        return default
    candidate = (base / config_path).resolve()
    if not candidate.is_relative_to(base.resolve()):
        raise ServiceError("config_path: must lie inside the server's directory")
    if candidate.is_dir():
        raise ServiceError(f"config_path: {config_path!r} is a directory, not a file")
    if not candidate.is_file():
        raise NotFound(f"config_path: configuration file not found: {config_path!r}")
    return candidate


def evaluate(config_path: Path, target: str | None, suite: str | None) -> dict[str, Any]:
    from audit_pipeline.commands.run_audit import RunOptions, run_audit

    try:
        config = load_config(config_path)
    except ConfigError as error:
        raise ServiceError(f"config_path: {config_path}: {error.summary}") from None

    # The CLI's own preflight checks, with the request's fields.
    args = argparse.Namespace(
        target=target,
        suite=suite,
        category=[],
        ids=[],
        fuzz=None,
        repeat=1,
        min_fail=None,
        concurrency=None,
        processes=1,
        json=None,
    )
    try:
        chosen_target, chosen_suite = check_run(config, args)
    except UsageError as error:
        raise ServiceError(str(error)) from None
    result = run_audit(config_path, config, RunOptions(target=chosen_target, suite=chosen_suite))
    if not result.success or result.outcome is None:
        raise Failed("; ".join(result.errors) or "the audit did not complete")
    outcome = result.outcome
    details = Warehouse(config.duckdb_path).query(
        "SELECT c.prompt_id, c.text AS claim, v.label, v.probability, v.justification,"
        " v.evidence_changed"
        " FROM claims c JOIN verdicts v USING (audit_id, claim_id) WHERE c.audit_id = ?"
        " ORDER BY c.prompt_id, c.turn, c.start_char",
        [outcome.audit_id],
    )
    counts = details["label"].value_counts().to_dict()
    return {
        "audit_id": outcome.audit_id,
        "score": outcome.risk,
        # The release decision every surface prints, the rule that set it, and the gates it
        # folds (issue 23): a block from a gate, or an incomplete audit, says so here too.
        "decision": outcome.decision,
        "rule": outcome.rule,
        "incomplete": outcome.incomplete,
        "gates": [gate.to_dict() for gate in outcome.gates],
        "total_claims": len(details),
        "supported": int(counts.get("supported", 0)),
        "unsupported": int(counts.get("unsupported", 0)),
        "weakly_supported": int(counts.get("weakly_supported", 0)),
        "contradicted": int(counts.get("contradicted", 0)),
        "stale": int(counts.get("stale", 0)),
        "unverifiable": int(counts.get("unverifiable", 0)),
        "details": [
            {
                "prompt_id": row["prompt_id"],
                "claim": row["claim"],
                "label": row["label"],
                "probability": row["probability"],
                "justification": row["justification"],
                # Set when the vault document its evidence came from changed during the audit.
                "evidence_changed": or_none(row["evidence_changed"]),
            }
            for row in details.to_dict("records")
        ],
    }
