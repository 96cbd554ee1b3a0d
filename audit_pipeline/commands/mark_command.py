"""``audit-pipeline mark``: an analyst marks a claim's verdict right or wrong, once, and later
audits remember it (the chain's ``mark`` stage).

``mark AUDIT_ID CLAIM_ID --label supported|unsupported|contradicted [--note ...] [--by NAME]``
records one mark; ``mark --from marks.csv`` (or ``.jsonl``) records a file of them, all or
nothing. The claim ids are in the report (each claim card) and in ``v_claim_verdicts``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from audit_pipeline.commands.console import clean
from audit_pipeline.commands.preflight import UsageError
from audit_pipeline.records.marks import MARK_LABELS


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "mark",
        help="mark a claim's verdict right or wrong: later audits take the marked label",
    )
    parser.add_argument("audit_id", nargs="?", help="the audit the claim was judged in")
    parser.add_argument("claim_id", nargs="?", help="the claim (report card, v_claim_verdicts)")
    parser.add_argument("--label", choices=MARK_LABELS, help="what the claim really is")
    parser.add_argument("--note", help="why (shown in later verdicts' justification)")
    parser.add_argument("--by", help="who marks it (default: your login name)")
    parser.add_argument(
        "--from",
        dest="from_file",
        type=Path,
        metavar="FILE",
        help="record the marks of a CSV or JSONL file (audit_id, claim_id, label, note, by)",
    )


def command(args: argparse.Namespace, config: Any, warehouse: Any) -> int:
    from audit_pipeline.runs.mark_files import read_mark_file
    from audit_pipeline.runs.marking import MarkError, MarkRequest, record_marks

    single = args.audit_id is not None or args.claim_id is not None or args.label is not None
    if args.from_file is not None:
        if single or args.note or args.by:
            raise UsageError("mark --from FILE takes no AUDIT_ID, CLAIM_ID, --label, --note, --by")
    elif args.audit_id is None or args.claim_id is None or args.label is None:
        raise UsageError("mark needs AUDIT_ID CLAIM_ID --label LABEL (or --from FILE)")
    try:
        if args.from_file is not None:
            requests = read_mark_file(args.from_file)
            marks = record_marks(warehouse, requests, "file")
        else:
            request = MarkRequest(args.audit_id, args.claim_id, args.label, args.note, args.by)
            marks = record_marks(warehouse, [request], "cli")
    except MarkError as error:
        raise UsageError(str(error)) from None
    for mark in marks:
        given = (
            f"{mark.label_given} ({mark.decided_by_given})" if mark.label_given else "no verdict"
        )
        print(
            f"{mark.mark_id}  {mark.audit_id} {mark.claim_id}: {given} -> {mark.label_marked} "
            f'by {clean(mark.marked_by, 40)}  "{clean(mark.claim_text, 80)}"'
        )
    targets = sorted({m.target for m in marks if m.target})
    print(
        f"recorded {len(marks)} mark(s). Later audits of these claims take the marked label while "
        "their evidence is unchanged; the marks sensor re-scores the latest audit of "
        f"{', '.join(targets) or 'their targets'} (or run: audit-pipeline rescore)."
    )
    return 0
