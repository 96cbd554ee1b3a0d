"""The retrieval evaluation asset: the golden set through the audit's own retriever.

Not part of an audit run (``audit-pipeline run`` does not materialise it): retrieval quality is
a property of the vault, the index and the retrieval settings, not of a target. It runs from
``audit-pipeline retrieval-eval``, from the UI or its own job, and every run is recorded in
DuckDB, so its asset check can compare each evaluation with the previous one of the same golden
set.
"""

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    AssetSelection,
    MaterializeResult,
    MetadataValue,
    asset,
    define_asset_job,
)

from audit_pipeline.defs.resources import (
    AuditResource,
    VaultIndexResource,
    WarehouseResource,
)
from audit_pipeline.defs.vault_index_assets import IndexState
from audit_pipeline.evaluation.golden import golden_hash
from audit_pipeline.evaluation.golden_run import evaluate_retrieval
from audit_pipeline.evaluation.retrieval_gate import compare
from audit_pipeline.evaluation.sources import golden_queries
from audit_pipeline.reports.markdown import markdown_table
from audit_pipeline.runs.input_tables import write_retrieval_eval
from audit_pipeline.vault.documents import VaultScan
from audit_pipeline.warehouse.evaluation_tables import new_eval_id, previous_eval

GROUP = "evaluation"
REGRESSION_CHECK = "retrieval_regression"


@asset(
    group_name=GROUP,
    kinds={"lancedb", "duckdb"},
    description="Precision@k, recall@k, MRR, abstention rate and p95 latency of the vault "
    "retriever on the golden set (data/evaluation/golden_queries.jsonl plus suite prompts with "
    "expected_doc_ids), overall and per collection; recorded in DuckDB retrieval_evals.",
    check_specs=[
        AssetCheckSpec(
            REGRESSION_CHECK,
            asset="retrieval_eval",
            description="no gated figure (evaluation.max_drop) dropped further than allowed "
            "since the previous evaluation of the same golden set",
        )
    ],
)
def retrieval_eval(
    context: AssetExecutionContext,
    settings: AuditResource,
    warehouse: WarehouseResource,
    index: VaultIndexResource,
    vault_index: IndexState,
    vault_documents: VaultScan,
):  # no return annotation: Dagster would read it as the type of every output, checks too
    config = settings.config
    policy = config.collection_policy()
    queries = golden_queries(
        config.resolve(config.evaluation.golden_set),
        config.golden_suite_paths(),
        policy,
        [doc.doc_id for doc in vault_documents.documents],
    )
    report = evaluate_retrieval(
        index.retriever(policy),
        queries,
        policy,
        config.retrieval.top_k,
        config.evaluation.k,
        config_hash=config.retrieval_fingerprint(),
        golden_hash=golden_hash(queries),
        vault_hash=vault_index.vault_hash,
    )
    store = warehouse.get()
    eval_id = new_eval_id(context.run.run_id)
    baseline = previous_eval(store, report.golden_hash, eval_id)
    write_retrieval_eval(store, eval_id, report, context.run.run_id)
    overall = report.overall.to_dict()
    scopes = [{"scope": "overall", **overall}] + [
        {"scope": name, **figures.to_dict()} for name, figures in report.per_collection.items()
    ]
    columns = ["scope", "queries", "precision", "recall", "mrr", "abstention_rate"]
    limits = config.evaluation.max_drop.limits()
    if baseline is None:
        check = AssetCheckResult(
            check_name=REGRESSION_CHECK,
            passed=True,
            metadata={"baseline": "none: the first evaluation of this golden set"},
        )
    else:
        gate = compare(report.to_dict(), baseline, limits)
        check = AssetCheckResult(
            check_name=REGRESSION_CHECK,
            passed=gate.passed,
            severity=AssetCheckSeverity.ERROR,
            metadata={
                "baseline": str(baseline.get("eval_id")),
                "failures": "; ".join(gate.failures) or "none",
                **{
                    f"{c.figure}_delta": round(c.delta, 4)
                    for c in gate.changes
                    if c.scope == "overall" and c.delta is not None
                },
            },
        )
    return MaterializeResult(
        value=report,
        metadata={
            "eval_id": eval_id,
            "queries": report.queries,
            "config_hash": report.config_hash,
            "golden_hash": report.golden_hash,
            **{name: value for name, value in overall.items() if name != "queries"},
            "figures": MetadataValue.md(markdown_table(scopes, [*columns, "p95_latency_ms"])),
        },
        check_results=[check],
    )


EVALUATION_ASSETS = [retrieval_eval]
retrieval_eval_job = define_asset_job(
    "retrieval_evaluation",
    selection=AssetSelection.groups("vault", "index") | AssetSelection.assets(retrieval_eval),
    description="Re-index the vault and evaluate retrieval on the golden set.",
)
