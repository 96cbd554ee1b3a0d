"""The ``marks`` table and what the marks feature reads around it: the claim a mark is made
on (with its verdict and evidence), the live mark of each claim of an audit, the verifier's
quality on the marks, and the features a calibration fitted on.

Storage only: what a mark means for a verdict is decided by the mark stage
(``verification/stages/mark.py``), what is recorded by ``runs/marking.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from audit_pipeline.records.claims import AuditClaim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.marks import Mark, MarkLabel
from audit_pipeline.records.verdicts import Verdict
from audit_pipeline.warehouse.store import Warehouse, or_none
from audit_pipeline.warehouse.table_rows import ClaimRow, EvidenceRow, VerdictRow

MARK_COLUMNS = (
    "mark_id",
    "marked_at",
    "marked_by",
    "audit_id",
    "claim_id",
    "target",
    "prompt_id",
    "turn",
    "claim_text",
    "verdict_key",
    "evidence_state",
    "label_given",
    "decided_by_given",
    "label_marked",
    "note",
    "source",
)


def mark_row(mark: Mark) -> dict[str, Any]:
    row = {column: getattr(mark, column) for column in MARK_COLUMNS}
    row["label_marked"] = str(mark.label_marked)
    return row


def mark_of(record: dict[str, Any]) -> Mark:
    values = {column: or_none(record.get(column)) for column in MARK_COLUMNS}
    marked_at = values["marked_at"]
    if hasattr(marked_at, "to_pydatetime"):
        marked_at = marked_at.to_pydatetime()
    values["marked_at"] = marked_at
    values["turn"] = int(values["turn"])
    values["label_marked"] = MarkLabel(values["label_marked"])
    return Mark(**values)


def append_marks(store: Warehouse, marks: Sequence[Mark]) -> int:
    """Add ``marks`` in one transaction (nothing is ever deleted from ``marks``)."""
    return store.append("marks", [mark_row(m) for m in marks])


@dataclass(frozen=True)
class ClaimToMark:
    """What a mark on one claim of one audit records: the claim, the audit's target, the
    claim's verdict row (None before verification) and its evidence."""

    claim: AuditClaim
    target: str | None
    verdict: VerdictRow | None
    evidence: tuple[EvidencePassage, ...]

    @property
    def verifier_verdict(self) -> Verdict | None:
        """The verifier's own verdict (not one a mark set)."""
        return None if self.verdict is None else self.verdict.unmarked_verdict()


def claims_to_mark(
    store: Warehouse, pairs: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], ClaimToMark]:
    """By (audit id, claim id): the claims of ``pairs`` that exist, read in one connection."""
    wanted = sorted(set(pairs))
    if not wanted:
        return {}
    audits = sorted({a for a, _ in wanted})
    found: dict[tuple[str, str], ClaimToMark] = {}
    with store.reading():
        claims = store.query(
            "SELECT c.*, a.target AS audit_target FROM claims c JOIN audits a USING (audit_id) "
            "WHERE c.audit_id IN (SELECT unnest(?::VARCHAR[]))",
            [audits],
        )
        verdicts = store.query(
            "SELECT * FROM verdicts WHERE audit_id IN (SELECT unnest(?::VARCHAR[]))", [audits]
        )
        evidence = store.query(
            "SELECT * FROM evidence WHERE audit_id IN (SELECT unnest(?::VARCHAR[])) "
            "ORDER BY audit_id, claim_id, rank",
            [audits],
        )
    keys = set(wanted)
    rows = {
        (r["audit_id"], r["claim_id"]): VerdictRow.model_validate(r)
        for r in verdicts.to_dict("records")
        if (r["audit_id"], r["claim_id"]) in keys
    }
    passages: dict[tuple[str, str], list[EvidencePassage]] = {}
    for record in evidence.to_dict("records"):
        key = (record["audit_id"], record["claim_id"])
        if key in keys:
            passages.setdefault(key, []).append(EvidenceRow.model_validate(record).passage())
    for record in claims.to_dict("records"):
        key = (record["audit_id"], record["claim_id"])
        if key not in keys:
            continue
        target = or_none(record.pop("audit_target"))
        claim = ClaimRow.model_validate(record).audit_claim()
        found[key] = ClaimToMark(claim, target, rows.get(key), tuple(passages.get(key, ())))
    return found


def audit_exists(store: Warehouse, audit_id: str) -> bool:
    return bool(store.scalar("SELECT count(*) FROM audits WHERE audit_id = ?", [audit_id]))


def live_marks(store: Warehouse, audit_id: str) -> dict[str, Mark]:
    """By claim id: the latest mark on each claim key among the audit's claims (made on any
    audit, of any target)."""
    frame = store.query(
        "SELECT c.claim_id AS on_claim, m.* FROM marks m JOIN claims c "
        "ON c.audit_id = ? AND m.prompt_id = c.prompt_id AND m.turn = c.turn "
        "AND m.claim_text = c.text "
        "QUALIFY row_number() OVER (PARTITION BY c.claim_id ORDER BY m.seq DESC) = 1",
        [audit_id],
    )
    return {record["on_claim"]: mark_of(record) for record in frame.to_dict("records")}


def marks_after(store: Warehouse, seq: int) -> list[tuple[int, Mark]]:
    """Marks recorded after ``seq`` (the marks sensor's cursor), in order."""
    frame = store.query("SELECT * FROM marks WHERE seq > ? ORDER BY seq", [seq])
    return [(int(r["seq"]), mark_of(r)) for r in frame.to_dict("records")]


def latest_audits_with(store: Warehouse, marks: Sequence[Mark]) -> dict[str, str]:
    """By target: its latest audit, for each target whose latest audit holds a claim one of
    ``marks`` names, or which a mark was made on (the audits new marks re-score)."""
    if not marks:
        return {}
    keys = [[m.prompt_id, str(m.turn), m.claim_text] for m in marks]
    frame = store.query(
        "WITH latest AS (SELECT audit_id, target FROM audits WHERE target IS NOT NULL "
        "QUALIFY row_number() OVER (PARTITION BY target ORDER BY started_at DESC) = 1), "
        "wanted AS (SELECT k[1] AS prompt_id, k[2]::INTEGER AS turn, k[3] AS text "
        "FROM (SELECT unnest(?::VARCHAR[][]) AS k)) "
        "SELECT DISTINCT l.target, l.audit_id FROM latest l JOIN claims c USING (audit_id) "
        "JOIN wanted w ON w.prompt_id = c.prompt_id AND w.turn = c.turn AND w.text = c.text",
        [keys],
    )
    found = {r.target: r.audit_id for r in frame.itertuples(index=False)}
    targets = {m.target for m in marks if m.target}
    if targets - set(found):
        latest = store.query(
            "SELECT target, audit_id FROM audits WHERE target IN (SELECT unnest(?::VARCHAR[])) "
            "QUALIFY row_number() OVER (PARTITION BY target ORDER BY started_at DESC) = 1",
            [sorted(targets - set(found))],
        )
        found.update({r.target: r.audit_id for r in latest.itertuples(index=False)})
    return found


def marks_summary(store: Warehouse) -> dict[str, Any]:
    """Counts for the marks asset: marks, live ones, by label marked, the newest seq."""
    row = store.query(
        "SELECT count(*) AS marks, count(*) FILTER (WHERE live) AS live, "
        "count(*) FILTER (WHERE live AND label_marked = 'supported') AS supported, "
        "count(*) FILTER (WHERE live AND label_marked = 'unsupported') AS unsupported, "
        "count(*) FILTER (WHERE live AND label_marked = 'contradicted') AS contradicted, "
        "coalesce(max(seq), 0) AS latest_seq FROM v_marks"
    ).to_dict("records")[0]
    return {key: int(value) for key, value in row.items()}


def verifier_quality(store: Warehouse) -> list[dict[str, Any]]:
    """The rows of ``v_verifier_quality`` (empty before any mark), whole chain first."""
    frame = store.query("SELECT * FROM v_verifier_quality ORDER BY decided_by NULLS FIRST, label")
    return [{k: or_none(v) for k, v in r.items()} for r in frame.to_dict("records")]


# -- calibration features -------------------------------------------------------------------


def stored_features(
    store: Warehouse, answers: Iterable[tuple[str, str, int]], features_key: str
) -> dict[tuple[str, str, int], list[dict[str, Any]]]:
    """By (audit, prompt, turn): the stored features of each answer computed under
    ``features_key`` (the claims' JSON rows)."""
    wanted = {tuple(a) for a in answers}
    if not wanted:
        return {}
    frame = store.query("SELECT * FROM mark_features WHERE features_key = ?", [features_key])
    found = {}
    for r in frame.itertuples(index=False):
        key = (r.audit_id, r.prompt_id, int(r.turn))
        if key in wanted:
            found[key] = json.loads(r.claims)
    return found


def write_features(
    store: Warehouse,
    features: dict[tuple[str, str, int], list[dict[str, Any]]],
    features_key: str,
) -> None:
    """Keep computed features (each answer's row replaced, others left alone)."""
    if not features:
        return
    now = datetime.now(UTC)
    writes = [
        (
            "mark_features",
            [
                {
                    "audit_id": audit_id,
                    "prompt_id": prompt_id,
                    "turn": turn,
                    "features_key": features_key,
                    "claims": json.dumps(claims),
                    "computed_at": now,
                }
            ],
            {
                "audit_id": audit_id,
                "prompt_id": prompt_id,
                "turn": turn,
                "features_key": features_key,
            },
        )
        for (audit_id, prompt_id, turn), claims in features.items()
    ]
    store.replace_many(writes)


def live_marks_all(store: Warehouse) -> list[Mark]:
    """Every live mark (the latest on its claim key), oldest first."""
    frame = store.query("SELECT * FROM v_marks WHERE live ORDER BY seq")
    return [mark_of(r) for r in frame.to_dict("records")]
