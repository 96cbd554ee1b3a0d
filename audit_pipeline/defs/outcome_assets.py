"""Outcome assets: rule assertions, risk scores with the decision, and the release gates."""

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    AssetsDefinition,
    MetadataValue,
    Output,
    asset,
)

from audit_pipeline.assertions.catalog import VaultCatalog
from audit_pipeline.assertions.pinning import embedding_similarity
from audit_pipeline.assertions.runner import evaluate_audit
from audit_pipeline.assertions.settings import AssertionSettings
from audit_pipeline.config import AuditConfig
from audit_pipeline.defs.resources import (
    AuditSettingsResource,
    VaultIndexResource,
    WarehouseResource,
)
from audit_pipeline.defs.suite_assets import SelectedSuite
from audit_pipeline.observability.metrics import audit_registry, render, write_metrics
from audit_pipeline.reports.markdown import markdown_table
from audit_pipeline.reports.write import ReportPaths, write_outcome_report
from audit_pipeline.scoring.audit_summary import AuditSummary, answered_keys, summarize
from audit_pipeline.scoring.completeness import completeness
from audit_pipeline.scoring.gates import evaluate_gates
from audit_pipeline.scoring.outcome import AuditOutcome, build_outcome
from audit_pipeline.scoring.risk import score_audit
from audit_pipeline.scoring.rules import HALLUCINATED, final_decision
from audit_pipeline.scoring.turns import turn_outcomes
from audit_pipeline.scoring.waivers import (
    WaiverStatus,
    load_waivers,
    split,
    waive_claims,
    waive_rows,
)
from audit_pipeline.suites.fuzz import results_by_transformation
from audit_pipeline.targets.config import VaultBotTargetConfig
from audit_pipeline.vault.documents import VaultScan
from audit_pipeline.warehouse.audit_tables import AuditRef, load_response_records
from audit_pipeline.warehouse.detection_tables import (
    checked_claims_by_turn,
    labels_by_turn,
    load_assertion_rows,
    write_assertion_results,
    write_risk_scores,
)
from audit_pipeline.warehouse.store import Warehouse

GROUP = "audit"
GATES = ("decision", "hallucinations", "citation_errors", "pass_rate", "fallback_errors")
_SEVERITY = {"warn": AssetCheckSeverity.WARN, "error": AssetCheckSeverity.ERROR}


@dataclass(frozen=True)
class AssertionsResult:
    ref: AuditRef
    summary: AuditSummary
    waivers: dict[str, Any] | None = None  # WaiverStatus.to_dict(); None: no waivers file


def _waiver_status(config: AuditConfig) -> WaiverStatus | None:
    path = config.waivers_path
    return None if path is None else split(load_waivers(path), datetime.now(UTC).date())


def _labels(store: Warehouse, audit_id: str, status: WaiverStatus | None):  # type: ignore[no-untyped-def]
    """Verdict labels per turn, without the claims an active waiver accepts."""
    if status is None:
        return labels_by_turn(store, audit_id), []
    return waive_claims(checked_claims_by_turn(store, audit_id), status.active)


def assertion_settings_for(settings: AssertionSettings, target: object) -> AssertionSettings:
    """The configured settings plus the audited bot's own fallback sentence."""
    if isinstance(target, VaultBotTargetConfig):
        sentences = [*settings.fallback_sentences, target.fallback_sentence]
        return settings.model_copy(update={"fallback_sentences": list(dict.fromkeys(sentences))})
    return settings


def build_outcome_assets(  # type: ignore[no-untyped-def]
    partitions, with_waivers: bool = False
) -> list[AssetsDefinition]:
    """``with_waivers`` (a waivers file is configured) adds the ``gate_waivers`` check."""
    gates = (*GATES, "waivers") if with_waivers else GATES

    @asset(
        group_name=GROUP,
        kinds={"python", "duckdb"},
        partitions_def=partitions,
        description="Rule assertions per turn: expected behaviour, required signals, "
        "must-not-appear strings, must-not-assert strings (a supported denial is a note), "
        "four-level citation verification, leaks, false-memory "
        "agreement.",
    )
    def assertion_results(
        settings: AuditSettingsResource,
        warehouse: WarehouseResource,
        index: VaultIndexResource,
        responses: AuditRef,
        verdicts: AuditRef,
        prompt_suite: SelectedSuite,
        vault_documents: VaultScan,
    ) -> Output[AssertionsResult]:
        config = settings.load()
        rules = assertion_settings_for(config.assertions, config.targets.get(responses.target))
        store = warehouse.get()
        records = load_response_records(store, responses.audit_id)
        status = _waiver_status(config)
        labels, waived_claims = _labels(store, verdicts.audit_id, status)
        hallucinated = {key for key, found in labels.items() if HALLUCINATED.intersection(found)}
        suite = responses.select(prompt_suite.suite)
        semantic = any(t.pinned_tolerance == "semantic" for p in suite.prompts for t in p.turns)
        rows = evaluate_audit(
            suite,
            records,
            VaultCatalog.from_scan(vault_documents, rules.citation_aliases),
            rules,
            {key: key in hallucinated for key in labels},
            checked_claims_by_turn(store, verdicts.audit_id),
            embedding_similarity(index.embedder.get()) if semantic else None,
        )
        waived_rows: list[dict[str, Any]] = []
        if status is not None:
            rows, waived_rows = waive_rows(rows, status.active)
            status = replace(status, applied=(*waived_rows, *waived_claims))
        write_assertion_results(store, responses.audit_id, rows)
        summary = summarize(rows, answered_keys(records), hallucinated)
        failed = [row for row in rows if not row.passed]
        preview = [
            {"prompt": r.prompt_id, "turn": r.turn, "assertion": r.assertion, "detail": r.detail}
            for r in failed[:40]
        ]
        return Output(
            AssertionsResult(responses, summary, status.to_dict() if status else None),
            metadata={
                "audit_id": responses.audit_id,
                "assertions": len(rows),
                "failed": len(failed),
                "prompts_passed": summary.passed,
                "prompts_failed": summary.failed,
                "pass_rate": round(summary.pass_rate, 4),
                "waived": len(status.applied) if status else 0,
                "failures": MetadataValue.md(
                    markdown_table(preview, ["prompt", "turn", "assertion", "detail"])
                ),
            },
        )

    @asset(
        group_name=GROUP,
        kinds={"python", "duckdb"},
        partitions_def=partitions,
        description="Risk per response, per category and per audit, and the deploy / warn / "
        "block decision recorded on the audit.",
        check_specs=[
            AssetCheckSpec(f"gate_{name}", asset="risk_scores", description=f"release gate: {name}")
            for name in gates
        ],
    )
    def risk_scores(
        context: AssetExecutionContext,
        settings: AuditSettingsResource,
        warehouse: WarehouseResource,
        verdicts: AuditRef,
        assertion_results: AssertionsResult,
        prompt_suite: SelectedSuite,
    ):  # type: ignore[no-untyped-def]
        config = settings.load()
        ref = assertion_results.ref
        rules = assertion_settings_for(config.assertions, config.targets.get(ref.target))
        store = warehouse.get()
        records = load_response_records(store, ref.audit_id)
        labels, _ = _labels(store, verdicts.audit_id, _waiver_status(config))
        outcomes = turn_outcomes(
            ref.select(prompt_suite.suite),
            records,
            load_assertion_rows(store, ref.audit_id),
            labels,
            rules,
        )
        report = score_audit(outcomes, config.scoring)
        problems = completeness(records, labels).problems(config.scoring.incomplete_share)
        decision = final_decision(
            report.audit.decision or "warn", problems, config.scoring.on_incomplete
        )
        write_risk_scores(
            store, ref.audit_id, report.rows(), decision=decision, risk=report.audit.risk
        )
        summary = assertion_results.summary
        waivers = assertion_results.waivers
        gates = evaluate_gates(summary.to_dict(), decision, config.gates, problems, waivers)
        outcome = build_outcome(
            audit_id=ref.audit_id,
            target=ref.target,
            suite=ref.suite,
            summary=summary,
            risk=report,
            gates=gates,
            decision=decision,
            incomplete=problems,
            waivers=waivers,
            fuzz=results_by_transformation(
                ref.select(prompt_suite.suite), (f.prompt_id for f in summary.failures)
            )
            if prompt_suite.suite.fuzz
            else None,
        )
        context.log.info(
            f"audit {ref.audit_id}: decision {decision}, risk "
            f"{'n/a' if report.audit.risk is None else f'{report.audit.risk:.3f}'}"
            + (f" (incomplete: {'; '.join(problems)})" if problems else "")
        )
        categories = [{"category": name, **values} for name, values in outcome.by_category.items()]
        yield Output(
            outcome,
            metadata={
                "audit_id": ref.audit_id,
                "decision": decision,
                "risk": report.audit.risk if report.audit.risk is not None else float("nan"),
                "claims": report.audit.claims,
                "hallucination_rate": report.audit.hallucination_rate or 0.0,
                "pass_rate": summary.pass_rate,
                "by_category": MetadataValue.md(
                    markdown_table(categories, ["category", "passed", "failed", "risk"])
                ),
            },
        )
        for gate in gates:
            yield AssetCheckResult(
                check_name=f"gate_{gate.name}",
                passed=gate.passed,
                severity=_SEVERITY.get(gate.status, AssetCheckSeverity.WARN),
                metadata={"value": str(gate.value), "detail": gate.detail},
            )

    @asset(
        group_name=GROUP,
        kinds={"html"},
        partitions_def=partitions,
        description="Self-contained HTML and Markdown report of the audit: decision, summary, "
        "charts, trend, every failure with its highlighted spans and evidence.",
    )
    def audit_report(
        settings: AuditSettingsResource, warehouse: WarehouseResource, risk_scores: AuditOutcome
    ) -> Output[ReportPaths]:
        config = settings.load()
        paths = write_outcome_report(warehouse.get(), risk_scores, config)
        return Output(
            paths,
            metadata={
                "audit_id": risk_scores.audit_id,
                "decision": risk_scores.decision,
                "html": MetadataValue.path(str(paths.html)),
                "markdown": MetadataValue.path(str(paths.markdown)),
                "open": MetadataValue.url(Path(paths.html).resolve().as_uri()),
            },
        )

    @asset(
        group_name=GROUP,
        kinds={"prometheus"},
        partitions_def=partitions,
        description="The audit's counters in Prometheus text format (responses by status, "
        "claims, verdicts by label, service calls and failures, circuit-breaker state, "
        "abstentions by reason), written to <metrics_dir>/<target>.prom.",
    )
    def audit_metrics(
        settings: AuditSettingsResource, warehouse: WarehouseResource, risk_scores: AuditOutcome
    ) -> Output[str]:
        config = settings.load()
        rules = assertion_settings_for(config.assertions, config.targets.get(risk_scores.target))
        registry = audit_registry(warehouse.get(), risk_scores.audit_id, rules)
        path = write_metrics(
            registry,
            config.resolve(config.observability.metrics_dir) / f"{risk_scores.target}.prom",
        )
        text = render(registry)
        return Output(
            str(path),
            metadata={
                "audit_id": risk_scores.audit_id,
                "path": MetadataValue.path(str(path)),
                "metrics": MetadataValue.md(f"```\n{text}```"),
            },
        )

    return [assertion_results, risk_scores, audit_report, audit_metrics]
