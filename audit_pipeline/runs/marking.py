"""Recording analysts' marks: check each request against the warehouse, then add them all in
one transaction (the CLI, a marks file, ``POST /marks`` and the served report call this).

A request names an audit, one of its claims and the label the analyst gives it. What is
recorded with it comes from the warehouse, never from the request: the claim key, the verdict
key, the digest of the claim's evidence set (what the mark applies to later), and what the
verifier had said (its own verdict, also where an earlier mark had set the label). A batch is
all or nothing: one bad row and nothing is recorded, with a one-line error naming it.
"""

from __future__ import annotations

import getpass
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from audit_pipeline.records.marks import MARK_LABELS, Mark, MarkLabel, evidence_state
from audit_pipeline.warehouse.mark_tables import append_marks, claims_to_mark
from audit_pipeline.warehouse.store import Warehouse

MAX_NOTE = 2000
MAX_BY = 100
SOURCES = ("cli", "file", "api", "report")


class MarkError(ValueError):
    """A mark that cannot be recorded; the message names the request and the field."""


@dataclass(frozen=True)
class MarkRequest:
    """One mark as asked for; ``where`` names it in errors ("marks.csv row 3")."""

    audit_id: str
    claim_id: str
    label: str
    note: str | None = None
    by: str | None = None
    where: str = "mark"


def default_author() -> str:
    """The login name, for a mark made without ``--by``."""
    try:
        return getpass.getuser() or "analyst"
    except (KeyError, OSError):
        return "analyst"


def _checked(request: MarkRequest, default_by: str) -> tuple[MarkLabel, str | None, str]:
    where = request.where
    label = (request.label or "").strip().lower()
    if label not in MARK_LABELS:
        raise MarkError(f"{where}: label: {request.label!r} is not one of {', '.join(MARK_LABELS)}")
    for field, value in (("audit_id", request.audit_id), ("claim_id", request.claim_id)):
        if not isinstance(value, str) or not value.strip():
            raise MarkError(f"{where}: {field}: missing")
    note = (request.note or "").strip() or None
    if note is not None and len(note) > MAX_NOTE:
        raise MarkError(f"{where}: note: longer than {MAX_NOTE} characters")
    by = (request.by or "").strip() or default_by
    if len(by) > MAX_BY or any(ch in by for ch in "\r\n"):
        raise MarkError(f"{where}: by: at most {MAX_BY} characters on one line")
    return MarkLabel(label), note, by


def prepare_marks(
    store: Warehouse, requests: Sequence[MarkRequest], source: str, default_by: str | None = None
) -> list[Mark]:
    """The marks ``requests`` ask for, checked against the warehouse (nothing written)."""
    if source not in SOURCES:
        raise ValueError(f"unknown mark source {source!r}")
    author = default_by or default_author()
    checked = [(r, *_checked(r, author)) for r in requests]
    found = claims_to_mark(store, [(r.audit_id.strip(), r.claim_id.strip()) for r in requests])
    now = datetime.now(UTC)
    marks = []
    for request, label, note, by in checked:
        audit_id, claim_id = request.audit_id.strip(), request.claim_id.strip()
        target = found.get((audit_id, claim_id))
        if target is None:
            raise MarkError(
                f"{request.where}: claim_id: no claim {claim_id!r} in audit {audit_id!r} "
                "(claim ids are in the report and v_claim_verdicts)"
            )
        own = target.verifier_verdict
        marks.append(
            Mark(
                mark_id=f"m-{uuid.uuid4().hex[:12]}",
                marked_at=now,
                marked_by=by,
                audit_id=audit_id,
                claim_id=claim_id,
                target=target.target,
                prompt_id=target.claim.prompt_id,
                turn=target.claim.turn,
                claim_text=target.claim.claim.text,
                verdict_key=target.verdict.verdict_key if target.verdict else None,
                evidence_state=evidence_state(target.evidence),
                label_given=str(own.label) if own else None,
                decided_by_given=own.decided_by if own else None,
                label_marked=label,
                note=note,
                source=source,
            )
        )
    return marks


def record_marks(
    store: Warehouse, requests: Sequence[MarkRequest], source: str, default_by: str | None = None
) -> list[Mark]:
    """Check ``requests`` and add their marks in one transaction; returns them."""
    if not requests:
        return []
    marks = prepare_marks(store, requests, source, default_by)
    append_marks(store, marks)
    return marks
