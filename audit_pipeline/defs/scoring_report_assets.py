"""Assertions, scoring and reports assets (groups of the same names): rule assertions, risk
scores with the decision and the release gates, the report and the Prometheus counters.

The gates are asset checks of ``risk_scores`` **per partition** (per target): after an audit
of target B, target A's view in the UI still shows A's gates. Each check result also names its
target and audit in its description and metadata, and the run that decided is tagged with the
decision and its rule, so the Runs list shows what every audit concluded.
"""

import warnings
from pathlib import Path

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    AssetsDefinition,
    FreshnessPolicy,
    MaterializeResult,
    MetadataValue,
    Output,
    PartitionsDefinition,
    PreviewWarning,
    asset,
)

from audit_pipeline.assertions.vault_catalog import VaultCatalog
from audit_pipeline.defs.resources import AuditResource, VaultIndexResource, WarehouseResource
from audit_pipeline.defs.suite_response_assets import SelectedSuite
from audit_pipeline.observability.prometheus import audit_registry, render, write_metrics
from audit_pipeline.records.audits import AuditRef
from audit_pipeline.reports.markdown import markdown_table
from audit_pipeline.reports.write import ReportPaths, write_outcome_report
from audit_pipeline.runs.decide import (
    AssertionsResult,
    check_assertions,
    decide_audit,
    waiver_status,
)
from audit_pipeline.runs.evidence_changes import flag_changed_evidence
from audit_pipeline.scoring.audit_outcome import AuditOutcome
from audit_pipeline.vault.documents import VaultScan

GATES = (
    "completeness",
    "risk",
    "hallucinations",
    "citation_errors",
    "pass_rate",
    "fallback_errors",
)
_SEVERITY = {"warn": AssetCheckSeverity.WARN, "error": AssetCheckSeverity.ERROR}
RELEASE_CHECK = "release_decision"
# Run tags the Runs list shows: what the audit decided and the rule that set it.
DECISION_TAG = "audit-pipeline/decision"
RULE_TAG = "audit-pipeline/rule"


def _whose(outcome: AuditOutcome) -> str:
    return f"target {outcome.target}, audit {outcome.audit_id}"


def release_check(outcome: AuditOutcome) -> AssetCheckResult:
    """The release decision as a check of its own, beside the gates it folds: passes only on
    deploy, WARN on warn, ERROR on block and incomplete; its description is the same
    ``<decision>: <rule>`` the CLI, the report and the ``audits`` row show, with the target
    and audit it belongs to."""
    release = outcome.release
    return AssetCheckResult(
        check_name=RELEASE_CHECK,
        passed=release.decision == "deploy",
        severity=AssetCheckSeverity.WARN
        if release.decision == "warn"
        else AssetCheckSeverity.ERROR,
        description=f"{release} ({_whose(outcome)})",
        metadata={
            "decision": release.decision,
            "rule": release.rule,
            "target": outcome.target,
            "audit_id": outcome.audit_id,
        },
    )


def gate_checks(outcome: AuditOutcome) -> list[AssetCheckResult]:
    """One check result per gate, then the release decision; each says whose audit it judged."""
    return [
        *(
            AssetCheckResult(
                check_name=f"gate_{gate.name}",
                passed=gate.passed,
                severity=_SEVERITY.get(gate.status, AssetCheckSeverity.WARN),
                description=f"{gate.status.upper()}: {gate.detail} ({_whose(outcome)})",
                metadata={
                    "status": gate.status,
                    "value": str(gate.value),
                    "detail": gate.detail,
                    "target": outcome.target,
                    "audit_id": outcome.audit_id,
                },
            )
            for gate in outcome.gates
        ),
        release_check(outcome),
    ]


def decision_tags(outcome: AuditOutcome) -> dict[str, str]:
    """The tags a deciding run gets, so the Runs list shows each audit's decision and rule."""
    return {DECISION_TAG: outcome.decision, RULE_TAG: outcome.rule}


def _check_specs(gates: tuple[str, ...], partitions: PartitionsDefinition) -> list[AssetCheckSpec]:
    """The gates and the release decision as checks of ``risk_scores``, one result per
    partition (target). Dagster marks a partitioned check spec as a preview; the warning says
    nothing a user can act on, so it is silenced here and nowhere else."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PreviewWarning)
        return [
            *(
                AssetCheckSpec(
                    f"gate_{name}",
                    asset="risk_scores",
                    description=f"release gate: {name}",
                    partitions_def=partitions,
                )
                for name in gates
            ),
            AssetCheckSpec(
                RELEASE_CHECK,
                asset="risk_scores",
                description="the release decision: the worst of the gates, with its rule",
                partitions_def=partitions,
            ),
        ]


def build_scoring_report_assets(
    partitions: PartitionsDefinition,
    with_waivers: bool = False,
    freshness: FreshnessPolicy | None = None,
) -> list[AssetsDefinition]:
    """``with_waivers`` (a waivers file is configured) adds the ``gate_waivers`` check;
    ``freshness`` is the weekly audit's freshness policy on ``risk_scores``."""
    gates = (*GATES, "waivers") if with_waivers else GATES

    @asset(
        group_name="assertions",
        kinds={"python", "duckdb"},
        partitions_def=partitions,
        description="Rule assertions per turn: expected behaviour, required signals, "
        "must-not-appear strings, must-not-assert strings (a supported denial is a note), "
        "four-level citation verification, leaks, false-memory "
        "agreement. First, verdicts whose vault evidence was edited or deleted while the audit "
        "ran are flagged (verdicts.evidence_changed).",
    )
    def assertion_results(
        context: AssetExecutionContext,
        settings: AuditResource,
        warehouse: WarehouseResource,
        index: VaultIndexResource,
        responses: AuditRef,
        verdicts: AuditRef,
        prompt_suite: SelectedSuite,
        vault_documents: VaultScan,
    ) -> Output[AssertionsResult]:
        config = settings.config
        # The vault may have changed since the audit read it: say which verdicts that touched.
        changes = flag_changed_evidence(
            warehouse.get(), verdicts.audit_id, vault_documents, config.vault.max_file_bytes
        )
        if changes.documents:
            context.log.warning(changes.summary())
        rules = config.assertion_rules(responses.target)
        result, rows = check_assertions(
            warehouse.get(),
            responses=responses,
            verdicts_audit_id=verdicts.audit_id,
            suite=prompt_suite.suite,
            catalog=VaultCatalog.from_scan(vault_documents, rules.citation_aliases),
            rules=rules,
            waivers=waiver_status(config.waivers_path, prompt_suite.suite),
            embedder=index.embedder.get,
            strict_citations=config.validation.strict_citations,
        )
        summary = result.summary
        failed = [row for row in rows if not row.passed]
        preview = [
            {"prompt": r.prompt_id, "turn": r.turn, "assertion": r.assertion, "detail": r.detail}
            for r in failed[:40]
        ]
        return Output(
            result,
            metadata={
                "audit_id": responses.audit_id,
                "assertions": len(rows),
                "failed": len(failed),
                "prompts_passed": summary.passed,
                "prompts_failed": summary.failed,
                "pass_rate": round(summary.pass_rate, 4),
                "waived": len((result.waivers or {}).get("applied", [])),
                "evidence_changed": changes.verdicts,
                "changed_documents": MetadataValue.json(dict(changes.documents)),
                "failures": MetadataValue.md(
                    markdown_table(preview, ["prompt", "turn", "assertion", "detail"])
                ),
            },
        )

    @asset(
        group_name="scoring",
        kinds={"python", "duckdb"},
        partitions_def=partitions,
        freshness_policy=freshness,
        description="Risk per response, per category and per audit, and the deploy / warn / "
        "block decision recorded on the audit.",
        check_specs=_check_specs(gates, partitions),
    )
    def risk_scores(
        context: AssetExecutionContext,
        settings: AuditResource,
        warehouse: WarehouseResource,
        verdicts: AuditRef,
        assertion_results: AssertionsResult,
        prompt_suite: SelectedSuite,
    ):  # no return annotation: Dagster would read it as the type of every output, checks too
        config = settings.config
        ref = assertion_results.ref
        scored = decide_audit(
            warehouse.get(),
            assertions=assertion_results,
            verdicts_audit_id=verdicts.audit_id,
            suite=prompt_suite.suite,
            rules=config.assertion_rules(ref.target),
            scoring=config.scoring,
            gates=config.gates,
            waivers=waiver_status(config.waivers_path, prompt_suite.suite),
        )
        outcome, report, problems = scored.outcome, scored.risk, scored.problems
        decision, summary = outcome.decision, assertion_results.summary
        context.log.info(
            f"audit {ref.audit_id}: {outcome.release}, risk "
            f"{'n/a' if report.audit.risk is None else f'{report.audit.risk:.3f}'}"
            + (f" (incomplete: {'; '.join(problems)})" if problems else "")
        )
        categories = [{"category": name, **values} for name, values in outcome.by_category.items()]
        context.instance.add_run_tags(context.run.run_id, decision_tags(outcome))
        return MaterializeResult(
            value=outcome,
            metadata={
                "audit_id": ref.audit_id,
                "decision": decision,
                "rule": outcome.rule,
                "risk": report.audit.risk if report.audit.risk is not None else float("nan"),
                "claims": report.audit.claims,
                "hallucination_rate": report.audit.hallucination_rate or 0.0,
                "pass_rate": summary.pass_rate,
                "by_category": MetadataValue.md(
                    markdown_table(categories, ["category", "passed", "failed", "risk"])
                ),
            },
            check_results=gate_checks(outcome),
        )

    @asset(
        group_name="reports",
        kinds={"html"},
        partitions_def=partitions,
        description="Self-contained HTML and Markdown report of the audit: decision, summary, "
        "charts, trend, every failure with its highlighted spans and evidence.",
    )
    def audit_report(
        settings: AuditResource, warehouse: WarehouseResource, risk_scores: AuditOutcome
    ) -> Output[ReportPaths]:
        config = settings.config
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
        group_name="reports",
        kinds={"prometheus"},
        partitions_def=partitions,
        description="The audit's counters in Prometheus text format (responses by status, "
        "claims, verdicts by label, service calls and failures, circuit-breaker state, "
        "abstentions by reason), written to <metrics_dir>/<target>.prom.",
    )
    def audit_metrics(
        settings: AuditResource, warehouse: WarehouseResource, risk_scores: AuditOutcome
    ) -> Output[str]:
        config = settings.config
        rules = config.assertion_rules(risk_scores.target)
        store = warehouse.get()
        with store.reading():
            registry = audit_registry(store, risk_scores.audit_id, rules)
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
