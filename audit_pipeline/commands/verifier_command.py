"""``audit-pipeline verifier``: the configured verifier chain, stage by stage, and how well it
was measured.

Each stage with its version, what it reads, its role and its parameters (the model files it
loads, by digest); then the chain's identity (a digest of all that and the code: verdicts are
carried over only between audits of the same identity) and the figures measured for this exact
chain, or "figures not measured for this chain" when it differs from every measured one;
and beside them the chain's precision and recall on this team's marked claims
(``v_verifier_quality``), per label and per stage.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from audit_pipeline.commands.preflight import UsageError
from audit_pipeline.reports.marks_quality import quality_lines


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("verifier", help="list the verifier chain and its measured figures")
    parser.add_argument("--json", type=Path, help="write the chain as JSON here")


def command(args: argparse.Namespace, config: Any) -> int:
    from audit_pipeline.verification.configured import build_verifier
    from audit_pipeline.verification.stages.base import StageError
    from audit_pipeline.verification.verdict import chain_json

    try:
        chain = build_verifier(config.detection, None, reader=config.reader_settings)
    except (StageError, ValueError, OSError) as error:
        raise UsageError(f"the verifier chain cannot be built: {error}") from None
    for line in chain_lines(chain.name, chain.version, chain.digest, chain.describe()):
        print(line)
    print(f"measured: {chain.quality}")
    on_marks = marks_quality(config)
    for line in quality_lines(on_marks):
        print(f"on marks: {line}")
    if args.json:
        described = json.loads(chain_json(chain)) | {"digest": chain.digest}
        described["on_marks"] = on_marks
        args.json.write_text(json.dumps(described, indent=2) + "\n", encoding="utf-8")
    return 0


def marks_quality(config: Any) -> list[dict[str, Any]]:
    """``v_verifier_quality``'s rows from the configured warehouse (empty without one, or
    before the marks migration: the command never writes)."""
    from audit_pipeline.warehouse.mark_tables import verifier_quality
    from audit_pipeline.warehouse.store import Warehouse, WarehouseError

    warehouse = Warehouse(config.duckdb_path)
    if not warehouse.path.exists():
        return []
    try:
        return verifier_quality(warehouse)
    except WarehouseError:
        return []


def chain_lines(name: str, identity: str, digest: str, stages: list[dict[str, Any]]) -> list[str]:
    """The chain as a table: one line per stage, in the order it runs."""
    lines = [f"verifier chain {name!r}: identity {identity}, stages digest {digest}"]
    width = max((len(s["name"]) for s in stages), default=5)
    lines.append(f"  #  {'stage':<{width}}  version  reads     role     parameters")
    for number, stage in enumerate(stages, start=1):
        params = " ".join(f"{k}={json.dumps(v)}" for k, v in sorted(stage["params"].items()))
        files = " ".join(f"{k}@{v[:8]}" for k, v in sorted(stage.get("files", {}).items()))
        detail = "; ".join(part for part in (params, files and f"files {files}") if part)
        lines.append(
            f"  {number:<2} {stage['name']:<{width}}  {stage['version']:<7}  "
            f"{stage['reads']:<8}  {stage['role']:<7}  {detail or '-'}"
        )
    return lines
