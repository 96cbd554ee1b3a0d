"""``audit-pipeline pin AUDIT_ID --id ID...``: the audit's answers become the suite's pins.

The answers come from the warehouse (every turn of each named prompt), the suite file is the one
configured under the audit's suite name, and the pins are written into it (``suites/pins.py``).
A prompt without an answer in that audit (a failed call), an unknown audit or prompt, or a suite
that is not a file ends in one ``error:`` line and exit 2, with the suite untouched.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from audit_pipeline.commands.preflight import UsageError
from audit_pipeline.suites.prompt_suite import DEFAULT_MIN_SIMILARITY, TOLERANCES


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("pin", help="write an audit's answers into its suite as pins")
    parser.add_argument("audit_id")
    parser.add_argument(
        "--id", action="append", required=True, dest="ids", help="prompt to pin (repeatable)"
    )
    parser.add_argument("--tolerance", choices=TOLERANCES, default="exact")
    parser.add_argument(
        "--min-similarity",
        type=float,
        default=None,
        help=f"with --tolerance semantic (default {DEFAULT_MIN_SIMILARITY})",
    )


def command(args: argparse.Namespace, config: Any, warehouse: Any) -> int:
    from audit_pipeline.config import ConfigError
    from audit_pipeline.suites.errors import SuiteFileError, SuiteValidationError
    from audit_pipeline.suites.loader import load_suite
    from audit_pipeline.suites.pins import PinError, write_pins

    similarity = args.min_similarity
    if similarity is not None and (args.tolerance != "semantic" or not 0 < similarity <= 1):
        raise UsageError("--min-similarity takes a number in (0, 1] and --tolerance semantic")
    audit = warehouse.query("SELECT suite FROM audits WHERE audit_id = ?", [args.audit_id])
    if audit.empty:
        raise UsageError(f"no audit {args.audit_id!r} in {warehouse.path}")
    try:
        _, path = config.suite_path(audit.iloc[0]["suite"])
        suite = load_suite(path)
        suite.filter(ids=args.ids)
    except (ConfigError, SuiteFileError, SuiteValidationError, ValueError) as error:
        raise UsageError(str(error)) from None
    rows = warehouse.query(
        "SELECT prompt_id, turn, response, error FROM responses WHERE audit_id = ?",
        [args.audit_id],
    )
    recorded = {(r.prompt_id, int(r.turn)): r for r in rows.itertuples(index=False)}
    answers: dict[tuple[str, int], str] = {}
    for prompt_id in dict.fromkeys(args.ids):
        for turn in range(len(suite.get(prompt_id).turns)):
            row = recorded.get((prompt_id, turn))
            if row is None or row.response is None or row.error is not None:
                why = "was not asked" if row is None else f"got no answer ({row.error})"
                raise UsageError(
                    f"prompt {prompt_id!r} turn {turn} {why} in audit {args.audit_id}: "
                    "nothing to pin"
                )
            answers[(prompt_id, turn)] = row.response
    try:
        write_pins(Path(path), answers, args.tolerance, similarity)
    except (PinError, SuiteValidationError) as error:
        raise UsageError(str(error)) from None
    print(
        f"pinned {len(answers)} turn(s) of {', '.join(dict.fromkeys(args.ids))} in {path} "
        f"(tolerance {args.tolerance}) from audit {args.audit_id}"
    )
    return 0
