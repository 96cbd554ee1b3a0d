"""Claims, evidence and verification assets (groups of the same names): claims → evidence →
verdicts, per target partition.

Each asset reads its inputs for the audit from the warehouse and writes its own rows there, so
any of them can be re-materialised alone (``reverify``) and replaces only its own rows.
"""

from collections import Counter

from dagster import (
    AssetExecutionContext,
    AssetsDefinition,
    MetadataValue,
    Output,
    PartitionsDefinition,
    asset,
)

from audit_pipeline.claims.audit_claims import extract_claims
from audit_pipeline.defs.resources import (
    AuditResource,
    JudgeKeyResource,
    VaultIndexResource,
    WarehouseResource,
)
from audit_pipeline.defs.vault_index_assets import IndexState
from audit_pipeline.evidence.claim_evidence import gather_evidence
from audit_pipeline.llm.usage import LLMUsage
from audit_pipeline.reports.markdown import markdown_table
from audit_pipeline.terminology.audit import (
    audit_evidence,
    audit_verdicts,
    plan_audit,
    prompts_of,
)
from audit_pipeline.verification.configured import (
    build_extractor,
    build_verifier,
    verifier_identity,
)
from audit_pipeline.warehouse.audit_tables import AuditRef, load_responses
from audit_pipeline.warehouse.reverification import verify_audit
from audit_pipeline.warehouse.verdict_tables import (
    answered_turns,
    load_claims,
    load_evidence,
    write_claims,
    write_evidence,
    write_service_stats,
    write_verdicts,
)

_WORST = ("stale", "contradicted", "unsupported", "weakly_supported")


def build_claim_verification_assets(partitions: PartitionsDefinition) -> list[AssetsDefinition]:
    @asset(
        group_name="claims",
        kinds={"python", "duckdb"},
        partitions_def=partitions,
        description="Checkable claims of every answer, with exact character spans. Greetings, "
        "fallback sentences, questions and citation markers are left out.",
    )
    def claims(
        context: AssetExecutionContext,
        settings: AuditResource,
        warehouse: WarehouseResource,
        judge_key: JudgeKeyResource,
        responses: AuditRef,
    ) -> Output[AuditRef]:
        config = settings.config
        fallbacks = config.assertion_rules(responses.target).fallback_sentences
        extractor = build_extractor(config.detection, fallbacks, judge_key.api_key)
        store = warehouse.get()
        turns = answered_turns(load_responses(store, responses.audit_id))
        extraction = extract_claims(turns, extractor, config.detection.max_claims_per_answer)
        found = extraction.claims
        write_claims(store, responses.audit_id, found)
        for capped in extraction.capped:
            context.log.warning(
                f"{capped.prompt_id} turn {capped.turn}: {capped.found} claims, only the first "
                f"{capped.kept} are checked (detection.max_claims_per_answer)"
            )
        per_turn = Counter((c.prompt_id, c.turn) for c in found)
        preview = [
            {"prompt": c.prompt_id, "turn": c.turn, "kind": c.claim.kind, "claim": c.claim.text}
            for c in found[:40]
        ]
        return Output(
            responses,
            metadata={
                "audit_id": responses.audit_id,
                "claims": len(found),
                "responses_with_claims": len(per_turn),
                "extractor": extractor.name,
                "max_claims_per_answer": config.detection.max_claims_per_answer,
                "capped_answers": len(extraction.capped),
                "capped_claims_dropped": sum(c.dropped for c in extraction.capped),
                "capped": MetadataValue.json(
                    [f"{c.prompt_id}:{c.turn} {c.found} -> {c.kept}" for c in extraction.capped]
                ),
                "preview": MetadataValue.md(
                    markdown_table(preview, ["prompt", "turn", "kind", "claim"])
                ),
            },
        )

    @asset(
        group_name="evidence",
        kinds={"lancedb", "duckdb"},
        partitions_def=partitions,
        description="Top-k evidence per claim: hybrid search over the vault index, or the "
        "context the target logged with its answer when there is one.",
    )
    def evidence(
        settings: AuditResource,
        warehouse: WarehouseResource,
        index: VaultIndexResource,
        claims: AuditRef,
        vault_index: IndexState,
    ) -> Output[AuditRef]:
        config = settings.config
        store = warehouse.get()
        stored = load_claims(store, claims.audit_id)
        answered = load_responses(store, claims.audit_id)
        turns = answered_turns(answered)
        retriever = index.retriever(config.collection_policy())
        found = gather_evidence(
            stored, turns, retriever, index.embedder.get(), config.detection.evidence_top_k
        )
        terminology = config.terminology()
        if terminology is not None:  # definitions are checked against the glossary first
            found = audit_evidence(found, plan_audit(terminology, stored, prompts_of(answered)))
        rows = write_evidence(store, claims.audit_id, found)
        stats = retriever.stats()
        write_service_stats(
            store,
            claims.audit_id,
            "evidence",
            "embedder",
            requests=stats["embedding_requests"],
            failures=stats["embedding_failures"],
            fallbacks=stats["embedding_fallbacks"],
            state=stats.get("breaker_state"),
        )
        sources = Counter(p.source for passages in found.values() for p in passages)
        return Output(
            claims,
            metadata={
                "audit_id": claims.audit_id,
                "claims": len(stored),
                "evidence_rows": rows,
                "from_vault": sources.get("vault", 0),
                "from_logged_context": sources.get("logged_context", 0),
                "from_glossary": sources.get("glossary", 0),
                "fallback_mode": sum(p.fallback_mode for ps in found.values() for p in ps),
                "vault_hash": vault_index.vault_hash,
            },
        )

    @asset(
        group_name="verification",
        kinds={"python", "duckdb"},
        partitions_def=partitions,
        description="A verdict per claim (supported / weakly supported / unsupported / "
        "contradicted / unverifiable) with probability, justification and provenance.",
    )
    def verdicts(
        context: AssetExecutionContext,
        settings: AuditResource,
        warehouse: WarehouseResource,
        index: VaultIndexResource,
        judge_key: JudgeKeyResource,
        evidence: AuditRef,
        vault_index: IndexState,
    ) -> Output[AuditRef]:
        config = settings.config
        store = warehouse.get()
        stored = load_claims(store, evidence.audit_id)
        passages = load_evidence(store, evidence.audit_id)
        verifier = build_verifier(config.detection, index.embedder.get(), judge_key.api_key)
        run = verify_audit(
            store,
            target=evidence.target,
            claims=stored,
            evidence=passages,
            verifier=verifier,
            verifier_id=verifier_identity(verifier, config.detection),
            vault_state=vault_index.vault_hash,
        )
        results = run.verdicts
        terminology = config.terminology()
        if terminology is not None:
            prompts = prompts_of(load_responses(store, evidence.audit_id))
            results = audit_verdicts(results, stored, plan_audit(terminology, stored, prompts))
        write_verdicts(store, evidence.audit_id, stored, results, run.provenance)
        spent = sum((v.usage for v in results), LLMUsage())
        labels = Counter(str(v.label) for v in results)
        context.log.info(f"verdicts: {dict(labels)}")
        worst = sorted(
            ((v, c) for c, v in zip(stored, results, strict=True) if str(v.label) in _WORST),
            key=lambda pair: (_WORST.index(str(pair[0].label)), pair[0].probability),
        )
        preview = [
            {
                "prompt": c.prompt_id,
                "label": str(v.label),
                "p_supported": round(v.probability, 2),
                "claim": c.claim.text,
            }
            for v, c in worst[:20]
        ]
        return Output(
            evidence,
            metadata={
                "audit_id": evidence.audit_id,
                "claims": len(results),
                "verified_now": run.verified,
                "carried_over": run.carried,
                "vault_hash": vault_index.vault_hash,
                **{f"label_{name}": labels.get(name, 0) for name in (*_WORST, "supported")},
                "label_unverifiable": labels.get("unverifiable", 0),
                "verifier": f"{verifier.name} {verifier.version}",
                "verifier_quality": getattr(verifier, "quality", "") or "not measured",
                "decided_by_judge": sum(v.decided_by == "judge" for v in results),
                "judge_calls": spent.calls,
                "judge_prompt_tokens": spent.prompt_tokens,
                "judge_completion_tokens": spent.completion_tokens,
                "judge_cost_usd": spent.cost_usd,
                "worst_claims": MetadataValue.md(
                    markdown_table(preview, ["prompt", "label", "p_supported", "claim"])
                ),
            },
        )

    return [claims, evidence, verdicts]
