"""``audit-pipeline retrieval-eval``: golden-set figures, and the gate against a baseline.

Everything that can be wrong before the evaluation (the golden set, the baseline file, the
``--json`` path, the vault, the warehouse) is checked first and ends in one ``error:`` line with
exit 2. The evaluation itself materialises the vault assets and the ``retrieval_eval`` asset in
process, so the index is brought up to date and the run is recorded like one from the UI.
Exit 1 means the gate failed: a gated figure dropped further than allowed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from audit_pipeline.commands.console import table
from audit_pipeline.commands.preflight import UsageError, check_writable_file
from audit_pipeline.evaluation.evaluation_settings import GATED_METRICS
from audit_pipeline.evaluation.retrieval_figures import FIGURES


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "retrieval-eval",
        help="evaluate retrieval on the golden set; with --baseline, gate on regressions",
    )
    parser.add_argument("--baseline", type=Path, help="an earlier retrieval-eval --json file")
    parser.add_argument("--json", type=Path, help="write the figures (and the diff) as JSON")
    parser.add_argument(
        "--max-drop",
        action="append",
        default=[],
        metavar="FIGURE=FRACTION",
        help="largest tolerated drop against the baseline, e.g. precision=0.05 or recall=0.1 "
        "(figures: precision, hit_precision, recall, mrr) "
        "(overrides evaluation.max_drop; FRACTION 'off' ungates the figure)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show Dagster's step logs")


def parse_max_drop(values: list[str], configured: dict[str, float]) -> dict[str, float]:
    limits = dict(configured)
    for value in values:
        name, equals, amount = value.partition("=")
        name = name.strip()
        if not equals or name not in GATED_METRICS:
            raise UsageError(
                f"--max-drop {value!r}: write FIGURE=FRACTION with FIGURE one of "
                f"{', '.join(GATED_METRICS)}"
            )
        if amount.strip() == "off":
            limits.pop(name, None)
            continue
        try:
            limit = float(amount)
        except ValueError:
            limit = -1.0
        if not 0.0 <= limit <= 1.0:
            raise UsageError(f"--max-drop {value!r}: FRACTION must be a number in 0..1 or 'off'")
        limits[name] = limit
    return limits


def command(args: argparse.Namespace, config_path: Path, config: Any) -> int:
    from audit_pipeline.commands.preflight import (
        check_embedding_key,
        check_vault,
        check_warehouse,
    )
    from audit_pipeline.evaluation.golden import GoldenSetError
    from audit_pipeline.evaluation.retrieval_gate import compare, load_baseline
    from audit_pipeline.evaluation.sources import golden_queries
    from audit_pipeline.vault.documents import scan_vault

    limits = parse_max_drop(args.max_drop, config.evaluation.max_drop.limits())
    if args.json is not None:
        check_writable_file(args.json, "--json")
    check_embedding_key(config)
    check_vault(config)
    try:
        baseline = load_baseline(args.baseline) if args.baseline is not None else None
        scan = scan_vault(
            config.vault_path,
            config.vault.include,
            config.vault.max_file_bytes,
            config.vault.follow_external_symlinks,
        )
        golden_queries(
            config.resolve(config.evaluation.golden_set),
            config.golden_suite_paths(),
            config.collection_policy(),
            [doc.doc_id for doc in scan.documents],
        )
    except GoldenSetError as error:
        raise UsageError(str(error)) from None
    check_warehouse(config)

    report = _materialize(config_path, config, args.verbose)
    current = report.to_dict()
    print_report(current, sys.stdout)
    gate = None
    if baseline is not None:
        gate = compare(current, baseline, limits)
        print_diff(gate, args.baseline, sys.stdout)
        current["baseline"] = {"path": str(args.baseline), **gate.to_dict()}
    if args.json is not None:
        args.json.write_text(json.dumps(current, indent=2))
    return 1 if gate is not None and not gate.passed else 0


def _materialize(config_path: Path, config: Any, verbose: bool) -> Any:
    from dagster import materialize

    from audit_pipeline.commands.run_audit import failures, instance
    from audit_pipeline.defs.evaluation_assets import retrieval_eval
    from audit_pipeline.defs.resources import resources_from_config
    from audit_pipeline.defs.vault_index_assets import VAULT_ASSETS

    level = "DEBUG" if verbose else "CRITICAL"
    result = materialize(
        [*VAULT_ASSETS, retrieval_eval],
        resources=resources_from_config(str(config_path), config),
        instance=instance(config),
        run_config={"loggers": {"console": {"config": {"log_level": level}}}},
        raise_on_error=False,
    )
    if not result.success:
        messages = [message for _, message in failures(result)] or ["the evaluation failed"]
        raise UsageError("; ".join(messages))
    return result.asset_value("retrieval_eval")


def _fraction(value: Any) -> str:
    return "-" if value is None else f"{value:.3f}"


def print_report(report: dict[str, Any], out: TextIO) -> None:
    print(
        f"retrieval-eval: {report['queries']} golden queries, figures @{report['k']} "
        f"(retriever top_k {report['top_k']})  "
        f"config {report['config_hash']}  golden set {report['golden_hash']}",
        file=out,
    )
    rows = [{"scope": "overall", **report["overall"]}] + [
        {"scope": name, **figures} for name, figures in report["per_collection"].items()
    ]
    shown = [
        {
            "scope": row["scope"],
            "queries": row["queries"],
            **{name: _fraction(row.get(name)) for name in FIGURES[:-1]},
            "p95_latency_ms": f"{row['p95_latency_ms']:.1f}",
        }
        for row in rows
    ]
    table(shown, ["scope", "queries", *FIGURES], out)
    misses = report.get("misses", [])
    if misses:
        print(f"\n{len(misses)} queries missed an expected document (first 5):", file=out)
        for miss in misses[:5]:
            print(
                f"  {miss['query'][:70]!r}: expected {', '.join(miss['expected'])}; got "
                f"{', '.join(miss['retrieved']) or 'nothing (abstained)'}",
                file=out,
            )


def print_diff(gate: Any, path: Path, out: TextIO) -> None:
    print(f"\nagainst baseline {path}:", file=out)
    for note in gate.notes:
        print(f"  note: {note}", file=out)
    rows = []
    for change in gate.changes:
        latency = change.figure == "p95_latency_ms"
        shown = "{:.1f}" if latency else "{:.3f}"
        if change.delta is None:
            delta = ""
        else:
            delta = f"{change.delta:+.1f} ms" if latency else f"{change.delta * 100:+.1f} pts"
        rows.append(
            {
                "scope": change.scope,
                "figure": change.figure,
                "baseline": "-" if change.before is None else shown.format(change.before),
                "now": "-" if change.after is None else shown.format(change.after),
                "change": delta,
            }
        )
    table(rows, ["scope", "figure", "baseline", "now", "change"], out)
    limits = ", ".join(f"{name} -{limit * 100:.1f} pts" for name, limit in gate.limits.items())
    if gate.passed:
        print(f"\nGATE PASSED (limits: {limits or 'none'})", file=out)
    else:
        print(f"\nGATE FAILED: {'; '.join(gate.failures)}", file=out)
