"""The audit's last two stages as plain engine calls: check the rule assertions, then score,
decide and gate.

These were the bodies of the ``assertion_results`` and ``risk_scores`` assets; they live here so
the business rules (which claims a waiver accepts, which turns count as hallucinated, how the
risk report, the completeness rule, the gates and the outcome fit together) can be called and
tested without Dagster, and so the assets only call the engine and attach metadata. Every
setting arrives as an argument: the caller reads ``audit.yaml`` once per run and hands the
relevant sections down.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from audit_pipeline.assertions.assertion_runner import evaluate_audit
from audit_pipeline.assertions.assertion_settings import AssertionSettings
from audit_pipeline.assertions.pinning import embedding_similarity
from audit_pipeline.assertions.vault_catalog import VaultCatalog
from audit_pipeline.embedding import Embedder
from audit_pipeline.records.assertions import AssertionRow
from audit_pipeline.records.audits import AuditRef
from audit_pipeline.scoring.audit_outcome import AuditOutcome, build_outcome
from audit_pipeline.scoring.audit_summary import AuditSummary, TurnKey, answered_keys, summarize
from audit_pipeline.scoring.completeness import completeness
from audit_pipeline.scoring.gates import GateSettings, evaluate_gates
from audit_pipeline.scoring.risk import RiskReport, ScoringSettings, score_audit
from audit_pipeline.scoring.rules import HALLUCINATED
from audit_pipeline.scoring.turns import turn_outcomes
from audit_pipeline.scoring.waivers import (
    WaiverStatus,
    load_waivers,
    split,
    waive_claims,
    waive_rows,
)
from audit_pipeline.suites.fuzz import results_by_transformation
from audit_pipeline.suites.prompt_suite import PromptSuite
from audit_pipeline.validation.batch import strict_citation_rows
from audit_pipeline.warehouse.audit_tables import load_response_records
from audit_pipeline.warehouse.claim_history import stored_claims
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline.warehouse.verdict_tables import (
    checked_claims_by_turn,
    labels_by_turn,
    load_assertion_rows,
    write_assertion_results,
    write_risk_scores,
)

Labels = dict[TurnKey, list[str]]


@dataclass(frozen=True)
class AssertionsResult:
    """What the scoring step needs from the assertion step (passed between the two assets)."""

    ref: AuditRef
    summary: AuditSummary
    waivers: dict[str, Any] | None = None  # WaiverStatus.to_dict(); None: no waivers file


@dataclass(frozen=True)
class ScoredAudit:
    outcome: AuditOutcome
    risk: RiskReport
    problems: list[str]  # why the audit is incomplete; empty when it checked enough


def waiver_status(path: Path | None, suite: PromptSuite) -> WaiverStatus | None:
    """Today's split of the waivers file into active and expired, each checked against the
    audited ``suite``; None without a file."""
    if path is None:
        return None
    waivers = load_waivers(path, [prompt.id for prompt in suite.prompts])
    return split(waivers, datetime.now(UTC).date())


def waived_labels(
    store: Warehouse, audit_id: str, status: WaiverStatus | None
) -> tuple[Mapping[TurnKey, Sequence[str]], list[dict[str, Any]]]:
    """Verdict labels per turn, without the claims an active waiver accepts (and those)."""
    if status is None:
        return labels_by_turn(store, audit_id), []
    return waive_claims(checked_claims_by_turn(store, audit_id), status.active)


def check_assertions(
    store: Warehouse,
    *,
    responses: AuditRef,
    verdicts_audit_id: str,
    suite: PromptSuite,
    catalog: VaultCatalog,
    rules: AssertionSettings,
    waivers: WaiverStatus | None,
    embedder: Callable[[], Embedder],
    strict_citations: bool = False,
) -> tuple[AssertionsResult, list[AssertionRow]]:
    """Evaluate every turn's assertions, apply the active waivers, store the rows and count the
    summary. ``suite`` is the full suite; the audit's own selection is taken here. ``embedder``
    is only called when a turn pins its answer with semantic tolerance (loading a model for
    nothing costs seconds)."""
    selected = suite.asked_in(responses)
    semantic = any(t.pinned_tolerance == "semantic" for p in selected.prompts for t in p.turns)
    with store.reading():
        records = load_response_records(store, responses.audit_id)
        labels, waived_claims = waived_labels(store, verdicts_audit_id, waivers)
        checked = checked_claims_by_turn(store, verdicts_audit_id)
        cited = stored_claims(store, verdicts_audit_id) if strict_citations else {}
    hallucinated = {key for key, found in labels.items() if HALLUCINATED.intersection(found)}
    rows = evaluate_audit(
        selected,
        records,
        catalog,
        rules,
        {key: key in hallucinated for key in labels},
        checked,
        embedding_similarity(embedder()) if semantic else None,
    )
    if strict_citations:  # validation.strict_citations: not fully cited fails the prompt
        rows = [
            *rows,
            *strict_citation_rows(
                records,
                cited,
                {prompt.id: prompt.category for prompt in selected.prompts},
                catalog,
                rules,
            ),
        ]
    status = waivers
    if status is not None:
        rows, waived_rows = waive_rows(rows, status.active)
        status = replace(status, applied=(*waived_rows, *waived_claims))
    write_assertion_results(store, responses.audit_id, rows)
    summary = summarize(rows, answered_keys(records), hallucinated)
    return AssertionsResult(responses, summary, status.to_dict() if status else None), rows


def decide_audit(
    store: Warehouse,
    *,
    assertions: AssertionsResult,
    verdicts_audit_id: str,
    suite: PromptSuite,
    rules: AssertionSettings,
    scoring: ScoringSettings,
    gates: GateSettings,
    waivers: WaiverStatus | None,
) -> ScoredAudit:
    """Risk per response, category and audit; the release gates (completeness and the risk
    zone among them); the release decision, the worst of the gates; all stored together, and
    returned as the audit's outcome."""
    ref = assertions.ref
    selected = suite.asked_in(ref)
    with store.reading():
        records = load_response_records(store, ref.audit_id)
        labels, _ = waived_labels(store, verdicts_audit_id, waivers)
        assertion_rows = load_assertion_rows(store, ref.audit_id)
    outcomes = turn_outcomes(selected, records, assertion_rows, labels, rules)
    report = score_audit(outcomes, scoring)
    checked = completeness(records, labels)
    problems = checked.problems(scoring.incomplete_share)
    summary = assertions.summary
    results = evaluate_gates(
        summary.to_dict(),
        gates,
        risk=report.audit.risk,
        thresholds=scoring.thresholds,
        incomplete=problems,
        on_incomplete=scoring.on_incomplete,
        waivers=assertions.waivers,
        unchecked=checked.notes(scoring.incomplete_share),
    )
    outcome = build_outcome(
        audit_id=ref.audit_id,
        target=ref.target,
        suite=ref.suite,
        summary=summary,
        risk=report,
        gates=results,
        incomplete=problems,
        waivers=assertions.waivers,
        fuzz=results_by_transformation(selected, (f.prompt_id for f in summary.failures))
        if suite.fuzz
        else None,
    )
    write_risk_scores(
        store,
        ref.audit_id,
        report.rows(),
        decision=outcome.decision,
        rule=outcome.rule,
        risk=report.audit.risk,
    )
    return ScoredAudit(outcome, report, problems)
