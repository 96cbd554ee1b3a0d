"""The ``response_validations`` asset: Self-RAG checks and citation class per answer."""

from collections import Counter

from dagster import AssetsDefinition, Output, PartitionsDefinition, asset

from audit_pipeline.assertions.vault_catalog import VaultCatalog
from audit_pipeline.defs.resources import (
    AuditResource,
    JudgeKeyResource,
    VaultIndexResource,
    WarehouseResource,
)
from audit_pipeline.records.audits import AuditRef
from audit_pipeline.runs.validations import validate_audit
from audit_pipeline.vault.documents import VaultScan
from audit_pipeline.warehouse.audit_tables import load_response_records


def build_validation_assets(partitions: PartitionsDefinition) -> list[AssetsDefinition]:
    @asset(
        group_name="validation",
        kinds={"python", "duckdb"},
        partitions_def=partitions,
        description="Self-RAG checks per answer (isrel / issup / isuse), the confidence with "
        "seed 003's weights, the accept / retry / reject recommendation and the citation "
        "class (fully / partially / un-cited).",
    )
    def response_validations(
        settings: AuditResource,
        warehouse: WarehouseResource,
        index: VaultIndexResource,
        judge_key: JudgeKeyResource,
        responses: AuditRef,
        verdicts: AuditRef,
        vault_documents: VaultScan,
    ) -> Output[AuditRef]:
        config = settings.config
        store = warehouse.get()
        rules = config.assertion_rules(responses.target)
        rows = validate_audit(
            store,
            verdicts.audit_id,
            load_response_records(store, responses.audit_id),
            embedder=index.embedder.get(),
            retriever=index.retriever(config.collection_policy()),
            catalog=VaultCatalog.from_scan(vault_documents, rules.citation_aliases),
            rules=rules,
            settings=config.validation,
            top_k=config.retrieval.top_k,
            judge_api_key=judge_key.api_key,
        )
        recommendations = Counter(row["recommendation"] for row in rows)
        classes = Counter(str(row["citation_class"]) for row in rows)
        confidences = [row["confidence"] for row in rows]
        return Output(
            verdicts,
            metadata={
                "audit_id": verdicts.audit_id,
                "answers": len(rows),
                "mean_confidence": round(sum(confidences) / len(confidences), 4)
                if confidences
                else float("nan"),
                **{
                    f"recommend_{k}": recommendations.get(k, 0)
                    for k in ("accept", "retry", "reject")
                },
                **{k: classes.get(k, 0) for k in ("fully_cited", "partially_cited", "uncited")},
            },
        )

    return [response_validations]
