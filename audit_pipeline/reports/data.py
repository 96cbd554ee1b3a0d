"""Everything one audit report shows, loaded from the warehouse in one read-only connection.

The report renderers (HTML, Markdown) never touch the warehouse: they take a ``ReportData``.
That keeps them pure functions that tests can feed directly, and keeps the reads in one place,
one query per table, so a report over a 1,000-prompt audit costs a handful of queries rather
than a few per prompt. The loader is lenient about stages that have not written yet (no
verdicts, no scores): a report of a half-finished audit shows what exists instead of failing.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import duckdb

from audit_pipeline.records.verdicts import HALLUCINATION_LABELS, Label
from audit_pipeline.warehouse.store import Warehouse

VERDICT_LABELS: tuple[str, ...] = tuple(str(label) for label in Label)
TREND_LIMIT = 12


class ReportDataError(LookupError):
    """The audit asked for is not in the warehouse."""


@dataclass(frozen=True)
class AuditInfo:
    audit_id: str
    started_at: datetime | None
    finished_at: datetime | None
    status: str | None
    target: str | None
    suite: str | None
    suite_hash: str | None
    vault_hash: str | None
    config_hash: str | None
    dagster_run_id: str | None
    decision: str | None
    risk: float | None
    decision_rule: str | None = None  # what set the release decision (migration 16)
    verifier_chain: str | None = None  # the chain that judged it, JSON (migration 18)


@dataclass(frozen=True)
class Evidence:
    rank: int
    chunk_id: str
    document: str | None
    section: str | None
    text: str
    vector_score: float | None
    bm25_score: float | None
    fused_score: float | None
    source: str | None
    fallback_mode: bool


@dataclass(frozen=True)
class Claim:
    """A claim with its verdict (``label`` is None until the verifier has run).

    ``error_spans`` are ``[start, end)`` ranges of ``text`` (not of the response) that the
    evidence does not back; the renderers clip them, so they may be anything the verifier said.
    """

    claim_id: str
    text: str
    start_char: int | None
    end_char: int | None
    kind: str | None
    label: str | None
    probability: float | None
    justification: str | None
    supporting_chunk_ids: tuple[str, ...]
    verifier: str | None
    decided_by: str | None
    evidence: tuple[Evidence, ...]
    error_spans: tuple[tuple[int, int], ...] = ()
    verifier_version: str | None = None
    # A stale claim: what the vault said before its document changed.
    superseded_texts: tuple[str, ...] = ()
    carried_from: str | None = None  # the audit whose verification this verdict comes from
    # The least supported claim of an answer the answer-level model reads as hallucinated while
    # no claim's label shows it (``Verdict.answer_suspect``): the answer is flagged for review.
    answer_suspect: bool = False

    @property
    def is_hallucination(self) -> bool:
        return self.label in HALLUCINATION_LABELS


@dataclass(frozen=True)
class Citation:
    label: str
    file: str | None
    section: str | None
    start: int | None
    end: int | None


@dataclass(frozen=True)
class AssertionResult:
    """One ``assertion_results`` row of a turn; the last three fields are the facts the summary
    counts with (``scoring/audit_summary.py``), stored on the ``behavior`` and ``citations``
    rows."""

    assertion: str
    passed: bool
    detail: str | None
    expected_behavior: str | None = None
    fell_back: bool = False
    citation_errors: int = 0

    @property
    def is_citation(self) -> bool:
        """Citation checks are named ``citation...`` by the assertion stage (any name with it)."""
        return "citation" in self.assertion.lower()


@dataclass(frozen=True)
class Turn:
    turn: int
    prompt: str
    response: str | None
    model: str | None
    error: str | None
    expected_behavior: str | None
    citations: tuple[Citation, ...]
    claims: tuple[Claim, ...]
    assertions: tuple[AssertionResult, ...]
    latency_ms: float | None
    from_cache: bool
    risk: float | None
    # Self-RAG confidence, its accept / retry / reject and the citation class (migration 10).
    confidence: float | None = None
    recommendation: str | None = None
    citation_class: str | None = None

    @property
    def failed_assertions(self) -> tuple[AssertionResult, ...]:
        return tuple(a for a in self.assertions if not a.passed)

    @property
    def hallucinations(self) -> tuple[Claim, ...]:
        return tuple(c for c in self.claims if c.is_hallucination)

    @property
    def is_failure(self) -> bool:
        """A failed check, a hallucinated claim, or no answer at all (the target errored)."""
        return bool(self.failed_assertions or self.hallucinations or self.error)


@dataclass(frozen=True)
class PromptResult:
    """One suite prompt in this audit: a single turn or a whole conversation."""

    prompt_id: str
    category: str
    turns: tuple[Turn, ...]

    @property
    def is_failure(self) -> bool:
        return any(turn.is_failure for turn in self.turns)

    @property
    def failed_assertions(self) -> tuple[AssertionResult, ...]:
        return tuple(a for turn in self.turns for a in turn.failed_assertions)

    @property
    def hallucinations(self) -> tuple[Claim, ...]:
        return tuple(c for turn in self.turns for c in turn.hallucinations)

    @property
    def suspect(self) -> bool:
        """An answer of this prompt is flagged as suspect (``Claim.answer_suspect``)."""
        return any(c.answer_suspect for turn in self.turns for c in turn.claims)

    @property
    def claims(self) -> tuple[Claim, ...]:
        return tuple(c for turn in self.turns for c in turn.claims)


@dataclass(frozen=True)
class Score:
    """One ``risk_scores`` row (scope 'category' or 'audit')."""

    category: str | None
    claims: int
    supported: int
    weakly_supported: int
    unsupported: int
    contradicted: int
    unverifiable: int
    risk: float | None
    hallucination_rate: float | None
    citation_accuracy: float | None
    fallback_rate: float | None
    refusal_rate: float | None
    decision: str | None


@dataclass(frozen=True)
class TrendPoint:
    audit_id: str
    started_at: datetime | None
    risk: float | None
    decision: str | None
    hallucination_rate: float | None
    is_current: bool


@dataclass(frozen=True)
class ReportData:
    audit: AuditInfo
    prompts: tuple[PromptResult, ...]
    audit_score: Score | None
    category_scores: Mapping[str, Score]
    previous_audit_id: str | None
    previous_category_scores: Mapping[str, Score]
    trend: tuple[TrendPoint, ...]  # oldest first, ending with this audit
    # The last retrieval evaluation on the golden set recorded before the audit ended.
    retrieval: Mapping[str, Any] | None = None
    # The verifier's quality on the team's marked claims (v_verifier_quality rows, now).
    marks_quality: tuple[Mapping[str, Any], ...] = ()

    @property
    def failures(self) -> tuple[PromptResult, ...]:
        return tuple(p for p in self.prompts if p.is_failure)

    @property
    def passing(self) -> tuple[PromptResult, ...]:
        return tuple(p for p in self.prompts if not p.is_failure)

    @property
    def categories(self) -> tuple[str, ...]:
        """Categories in first-seen prompt order, then any only the scores know about."""
        seen = dict.fromkeys(p.category for p in self.prompts)
        seen.update(dict.fromkeys(self.category_scores))
        return tuple(seen)

    def verdict_counts(self) -> dict[str, int]:
        """Claims per verdict label (every known label present; ``pending`` for unjudged)."""
        counts = dict.fromkeys(VERDICT_LABELS, 0)
        for prompt in self.prompts:
            for claim in prompt.claims:
                key = claim.label or "pending"
                counts[key] = counts.get(key, 0) + 1
        return counts


# -- loading -------------------------------------------------------------------------------


def load_report_data(
    warehouse: Warehouse, audit_id: str, *, trend_limit: int = TREND_LIMIT
) -> ReportData:
    """Read one audit and the recent history of its target from ``warehouse``."""
    with warehouse.connect(read_only=True) as con:
        audit_rows = _rows(con, "SELECT * FROM audits WHERE audit_id = ?", [audit_id])
        if not audit_rows:
            raise ReportDataError(f"audit {audit_id!r} is not in the warehouse {warehouse.path}")
        audit = _audit(audit_rows[0])
        suite_rows = _rows(
            con,
            "SELECT prompt_id, turn, category, prompt, expected_behavior FROM suite_prompts"
            " WHERE suite IS NOT DISTINCT FROM ? AND suite_hash IS NOT DISTINCT FROM ?",
            [audit.suite, audit.suite_hash],
        )
        responses = _rows(
            con, "SELECT * FROM responses WHERE audit_id = ? ORDER BY prompt_id, turn", [audit_id]
        )
        claims = _rows(
            con,
            "SELECT c.*, v.label, v.probability, v.justification, v.supporting_chunk_ids,"
            " v.verifier, v.verifier_version, v.decided_by, v.error_spans, v.carried_from,"
            " coalesce(v.answer_suspect, false) AS answer_suspect,"
            " (SELECT list(h.text ORDER BY h.chunk_id) FROM vault_chunk_history h"
            "  WHERE list_contains(v.superseded_chunk_ids, h.chunk_id)) AS superseded_texts"
            " FROM claims c LEFT JOIN verdicts v"
            " ON v.audit_id = c.audit_id AND v.claim_id = c.claim_id"
            " WHERE c.audit_id = ? ORDER BY c.prompt_id, c.turn, c.start_char, c.claim_id",
            [audit_id],
        )
        evidence = _rows(
            con, "SELECT * FROM evidence WHERE audit_id = ? ORDER BY claim_id, rank", [audit_id]
        )
        assertions = _rows(
            con,
            "SELECT * FROM assertion_results WHERE audit_id = ?"
            " ORDER BY prompt_id, turn, assertion",
            [audit_id],
        )
        scores = _rows(con, "SELECT * FROM risk_scores WHERE audit_id = ?", [audit_id])
        validations = _rows(
            con, "SELECT * FROM response_validations WHERE audit_id = ?", [audit_id]
        )
        trend_rows = _trend_rows(con, audit, trend_limit)
        retrieval = _rows(  # the latest evaluation of the vault state the audit ran on
            con,
            "SELECT * FROM retrieval_evals WHERE scope = 'overall' AND vault_hash = ?"
            " ORDER BY evaluated_at DESC LIMIT 1",
            [audit.vault_hash],
        )
        quality = (
            _rows(con, "SELECT * FROM v_verifier_quality", [])
            if _rows(con, "SELECT 1 FROM duckdb_views() WHERE view_name = 'v_verifier_quality'", [])
            else []
        )
        previous_id = next(
            (row["audit_id"] for row in reversed(trend_rows) if row["audit_id"] != audit_id), None
        )
        previous_scores = (
            _rows(
                con,
                "SELECT * FROM risk_scores WHERE audit_id = ? AND scope = 'category'",
                [previous_id],
            )
            if previous_id
            else []
        )

    prompts = _prompts(suite_rows, responses, claims, evidence, assertions, scores, validations)
    audit_level = [row for row in scores if row["scope"] == "audit"]
    return ReportData(
        audit=audit,
        prompts=prompts,
        audit_score=_score(audit_level[0]) if audit_level else None,
        category_scores=_category_scores(scores),
        previous_audit_id=previous_id,
        previous_category_scores=_category_scores(previous_scores),
        trend=tuple(_trend_point(row, audit_id) for row in trend_rows),
        retrieval=retrieval[0] if retrieval else None,
        marks_quality=tuple(quality),
    )


def _trend_rows(
    con: duckdb.DuckDBPyConnection, audit: AuditInfo, limit: int
) -> list[dict[str, Any]]:
    """This audit and up to ``limit`` earlier finished full audits of the same target, oldest
    first (an audit that was killed or never scored has no point to plot; one that asked part
    of the suite, or an interactive validation, is not comparable: migration 17's scope)."""
    rows = _rows(
        con,
        """
        SELECT a.audit_id, a.started_at, coalesce(a.risk, s.risk) AS risk,
               coalesce(a.decision, s.decision) AS decision, s.hallucination_rate
        FROM audits a
        LEFT JOIN (
            SELECT audit_id, max(risk) AS risk, max(decision) AS decision,
                   max(hallucination_rate) AS hallucination_rate
            FROM risk_scores WHERE scope = 'audit' GROUP BY audit_id
        ) s ON s.audit_id = a.audit_id
        WHERE a.target IS NOT DISTINCT FROM ?
          AND a.status = 'finished'
          AND a.scope = 'full'
          AND a.audit_id <> ?
          AND (a.started_at < ? OR (a.started_at = ? AND a.audit_id < ?))
        ORDER BY a.started_at DESC, a.audit_id DESC
        LIMIT ?
        """,
        [audit.target, audit.audit_id, audit.started_at, audit.started_at, audit.audit_id, limit],
    )
    current = _rows(
        con,
        "SELECT max(hallucination_rate) AS h, max(risk) AS r, max(decision) AS d"
        " FROM risk_scores WHERE audit_id = ? AND scope = 'audit'",
        [audit.audit_id],
    )[0]
    rows.reverse()
    rows.append(
        {
            "audit_id": audit.audit_id,
            "started_at": audit.started_at,
            "risk": audit.risk if audit.risk is not None else current["r"],
            "decision": audit.decision or current["d"],
            "hallucination_rate": current["h"],
        }
    )
    return rows


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
    """Rows as plain dicts: Python None for NULL, lists for arrays (no pandas NaN to trip on)."""
    result = con.execute(sql, list(params))
    names = [column[0] for column in result.description]
    return [dict(zip(names, row, strict=True)) for row in result.fetchall()]


def _prompts(
    suite_rows: Iterable[Mapping[str, Any]],
    responses: Iterable[Mapping[str, Any]],
    claims: Iterable[Mapping[str, Any]],
    evidence: Iterable[Mapping[str, Any]],
    assertions: Iterable[Mapping[str, Any]],
    scores: Iterable[Mapping[str, Any]],
    validations: Iterable[Mapping[str, Any]] = (),
) -> tuple[PromptResult, ...]:
    """Assemble prompts from per-table rows; a prompt any table knows about is included."""
    checks = {(r["prompt_id"], r["turn"]): r for r in validations}
    suite = {(r["prompt_id"], r["turn"]): r for r in suite_rows}
    suite_category = {r["prompt_id"]: r["category"] for r in suite.values()}
    by_turn: dict[tuple[str, int], dict[str, Any]] = {
        (r["prompt_id"], r["turn"]): dict(r) for r in responses
    }

    evidence_by_claim: dict[str, list[Evidence]] = defaultdict(list)
    for row in evidence:
        evidence_by_claim[row["claim_id"]].append(_evidence(row))
    claims_by_turn: dict[tuple[str, int], list[Claim]] = defaultdict(list)
    for row in claims:
        key = (row["prompt_id"], row["turn"])
        claims_by_turn[key].append(_claim(row, evidence_by_claim.get(row["claim_id"], [])))
    assertions_by_turn: dict[tuple[str, int], list[AssertionResult]] = defaultdict(list)
    assertion_category: dict[str, str] = {}
    for row in assertions:
        key = (row["prompt_id"], row["turn"])
        assertions_by_turn[key].append(
            AssertionResult(
                str(row["assertion"]),
                bool(row["passed"]),
                row["detail"],
                expected_behavior=_str(row.get("expected_behavior")),
                fell_back=bool(row.get("fell_back")),
                citation_errors=_int(row.get("citation_errors")) or 0,
            )
        )
        assertion_category.setdefault(row["prompt_id"], row["category"])
    response_scores: dict[tuple[str, int], Mapping[str, Any]] = {}
    for row in scores:
        if row["scope"] == "response" and row["prompt_id"] is not None:
            response_scores[(row["prompt_id"], row["turn"] or 0)] = row
            assertion_category.setdefault(row["prompt_id"], row["category"])

    keys = sorted(set(by_turn) | set(claims_by_turn) | set(assertions_by_turn))
    turns_by_prompt: dict[str, list[Turn]] = defaultdict(list)
    for key in keys:
        response = by_turn.get(key, {})
        suite_row = suite.get(key, {})
        turns_by_prompt[key[0]].append(
            Turn(
                turn=key[1],
                prompt=response.get("prompt") or suite_row.get("prompt") or "",
                response=response.get("response"),
                model=response.get("model"),
                error=response.get("error"),
                expected_behavior=suite_row.get("expected_behavior"),
                citations=_citations(response.get("citations")),
                claims=tuple(claims_by_turn.get(key, ())),
                assertions=tuple(assertions_by_turn.get(key, ())),
                latency_ms=_float(response.get("latency_ms")),
                from_cache=bool(response.get("from_cache")),
                risk=_float(response_scores.get(key, {}).get("risk")),
                confidence=_float(checks.get(key, {}).get("confidence")),
                recommendation=_str(checks.get(key, {}).get("recommendation")),
                citation_class=_str(checks.get(key, {}).get("citation_class")),
            )
        )
    return tuple(
        PromptResult(
            prompt_id=prompt_id,
            category=suite_category.get(prompt_id)
            or assertion_category.get(prompt_id)
            or "uncategorised",
            turns=tuple(turns),
        )
        for prompt_id, turns in turns_by_prompt.items()
    )


def _audit(row: Mapping[str, Any]) -> AuditInfo:
    return AuditInfo(
        audit_id=row["audit_id"],
        started_at=row.get("started_at"),
        finished_at=row.get("finished_at"),
        status=row.get("status"),
        target=row.get("target"),
        suite=row.get("suite"),
        suite_hash=row.get("suite_hash"),
        vault_hash=row.get("vault_hash"),
        config_hash=row.get("config_hash"),
        dagster_run_id=row.get("dagster_run_id"),
        decision=row.get("decision"),
        risk=_float(row.get("risk")),
        decision_rule=_str(row.get("decision_rule")),
        verifier_chain=_str(row.get("verifier_chain")),
    )


def _evidence(row: Mapping[str, Any]) -> Evidence:
    return Evidence(
        rank=int(row["rank"]),
        chunk_id=str(row["chunk_id"]),
        document=row.get("document"),
        section=row.get("section"),
        text=row.get("text") or "",
        vector_score=_float(row.get("vector_score")),
        bm25_score=_float(row.get("bm25_score")),
        fused_score=_float(row.get("fused_score")),
        source=row.get("source"),
        fallback_mode=bool(row.get("fallback_mode")),
    )


def _claim(row: Mapping[str, Any], evidence: Sequence[Evidence]) -> Claim:
    return Claim(
        claim_id=str(row["claim_id"]),
        text=row.get("text") or "",
        start_char=_int(row.get("start_char")),
        end_char=_int(row.get("end_char")),
        kind=row.get("kind"),
        label=row.get("label"),
        probability=_float(row.get("probability")),
        justification=row.get("justification"),
        supporting_chunk_ids=tuple(str(c) for c in row.get("supporting_chunk_ids") or ()),
        verifier=row.get("verifier"),
        decided_by=row.get("decided_by"),
        evidence=tuple(evidence),
        error_spans=_spans(row.get("error_spans")),
        verifier_version=row.get("verifier_version"),
        superseded_texts=tuple(str(t) for t in row.get("superseded_texts") or ()),
        carried_from=row.get("carried_from"),
        answer_suspect=bool(row.get("answer_suspect")),
    )


def _score(row: Mapping[str, Any]) -> Score:
    return Score(
        category=row.get("category"),
        claims=int(row.get("claims") or 0),
        supported=int(row.get("supported") or 0),
        weakly_supported=int(row.get("weakly_supported") or 0),
        unsupported=int(row.get("unsupported") or 0),
        contradicted=int(row.get("contradicted") or 0),
        unverifiable=int(row.get("unverifiable") or 0),
        risk=_float(row.get("risk")),
        hallucination_rate=_float(row.get("hallucination_rate")),
        citation_accuracy=_float(row.get("citation_accuracy")),
        fallback_rate=_float(row.get("fallback_rate")),
        refusal_rate=_float(row.get("refusal_rate")),
        decision=row.get("decision"),
    )


def _category_scores(rows: Iterable[Mapping[str, Any]]) -> dict[str, Score]:
    return {
        row["category"]: _score(row)
        for row in rows
        if row["scope"] == "category" and row.get("category") is not None
    }


def _trend_point(row: Mapping[str, Any], current_id: str) -> TrendPoint:
    return TrendPoint(
        audit_id=row["audit_id"],
        started_at=row.get("started_at"),
        risk=_float(row.get("risk")),
        decision=row.get("decision"),
        hallucination_rate=_float(row.get("hallucination_rate")),
        is_current=row["audit_id"] == current_id,
    )


def _json_list(raw: Any) -> list[Any]:
    """A JSON list column as a list: DuckDB may hand back text or parsed values; anything
    unreadable is an empty list."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return []
    return raw if isinstance(raw, list) else []


def _citations(raw: Any) -> tuple[Citation, ...]:
    """Citations from the JSON column; malformed entries are skipped, not fatal."""
    raw = _json_list(raw)
    found: list[Citation] = []
    for item in raw:
        if isinstance(item, str):
            found.append(Citation(item, None, None, None, None))
        elif isinstance(item, Mapping):
            label = item.get("label") or item.get("file") or ""
            found.append(
                Citation(
                    label=str(label),
                    file=_str(item.get("file")),
                    section=_str(item.get("section")),
                    start=_int(item.get("start")),
                    end=_int(item.get("end")),
                )
            )
    return tuple(found)


def _spans(raw: Any) -> tuple[tuple[int, int], ...]:
    """Error spans from the JSON column; anything but a pair of integers is skipped, because
    a malformed span from a verifier must cost its highlight, not the report."""
    raw = _json_list(raw)
    return tuple(
        (item[0], item[1])
        for item in raw
        if isinstance(item, list)
        and len(item) == 2
        and all(isinstance(n, int) and not isinstance(n, bool) for n in item)
    )


def _float(value: Any) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def _int(value: Any) -> int | None:
    number = _float(value)
    return None if number is None or math.isinf(number) else int(number)


def _str(value: Any) -> str | None:
    return None if value is None else str(value)
