"""Claims, evidence and verification assets (groups of the same names): claims → evidence →
verdicts, per target partition.

Each asset reads its inputs for the audit from the warehouse and writes its own rows there, so
any of them can be re-materialised alone (``reverify``) and replaces only its own rows.

With ``detection.batches: N`` above 1, ``evidence`` and ``verdicts`` are graph-backed assets
under the same keys: a planning step splits the audit into batches of prompts, one step per
batch does the expensive work without touching the warehouse (so an executor that runs steps in
parallel processes or pods runs the batches at once), and one writer step writes every batch's
rows. The bodies of all those steps are the engine's ``runs/detection_batches.py``; the
one-step assets call the same functions with one batch.
"""

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

from dagster import (
    AssetExecutionContext,
    AssetIn,
    AssetsDefinition,
    DagsterLogManager,
    DynamicOut,
    DynamicOutput,
    In,
    MetadataValue,
    Nothing,
    OpExecutionContext,
    Out,
    Output,
    PartitionsDefinition,
    asset,
    graph_asset,
    op,
)

from audit_pipeline.claims.audit_claims import extract_claims
from audit_pipeline.claims.claim_length import cut_note
from audit_pipeline.defs.cluster_execution import CLUSTER_STEP_TAGS
from audit_pipeline.defs.resources import (
    AuditResource,
    JudgeKeyResource,
    VaultIndexResource,
    WarehouseResource,
)
from audit_pipeline.defs.vault_index_assets import IndexState
from audit_pipeline.records.audits import AuditRef
from audit_pipeline.records.usage import LLMUsage
from audit_pipeline.records.verdicts import Verdict
from audit_pipeline.reports.markdown import markdown_table
from audit_pipeline.runs.carry_over import Verification
from audit_pipeline.runs.detection_batches import (
    EvidenceWork,
    EvidenceWritten,
    FoundEvidence,
    PlannedVerification,
    VerificationWork,
    find_evidence,
    plan_evidence,
    plan_verdicts,
    verify_work,
    write_found_evidence,
    write_planned_verdicts,
)
from audit_pipeline.verification.configured import (
    build_extractor,
    build_verifier,
    extraction_identity,
    verifier_identity,
)
from audit_pipeline.verification.stages.mark import NO_LONGER_APPLIES
from audit_pipeline.verification.stages.second_reading import SECOND_STAGE
from audit_pipeline.verification.verdict import Verifier, stages_line
from audit_pipeline.warehouse.audit_tables import load_responses
from audit_pipeline.warehouse.verdict_tables import answered_turns, kept_claims, write_claims

_WORST = ("stale", "contradicted", "unsupported", "weakly_supported")


def build_claim_verification_assets(
    partitions: PartitionsDefinition, batches: int = 1
) -> list[AssetsDefinition]:
    """The three detection assets; ``evidence`` and ``verdicts`` fan out over ``batches``."""

    @asset(
        group_name="claims",
        kinds={"python", "duckdb"},
        partitions_def=partitions,
        description="Checkable claims of every answer, with exact character spans. Greetings, "
        "fallback sentences, questions and citation markers are left out. Re-verifying an "
        "audit keeps the claims it stored when the extractor and its settings are unchanged.",
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
        key = extraction_identity(extractor, config.detection, fallbacks)
        store = warehouse.get()
        # Re-verifying an audit after a vault change: its answers, and so its claims, are
        # the same; an LLM extractor would be paid again for nothing.
        found = kept_claims(store, responses.audit_id, key)
        kept = bool(found)
        capped: dict[str, Any] = {}
        if not kept:
            turns = answered_turns(load_responses(store, responses.audit_id))
            extraction = extract_claims(turns, extractor, config.detection.max_claims_per_answer)
            found = extraction.claims
            write_claims(store, responses.audit_id, found, key)
            for cap in extraction.capped:
                context.log.warning(
                    f"{cap.prompt_id} turn {cap.turn}: {cap.found} claims, only the first "
                    f"{cap.kept} are checked (detection.max_claims_per_answer)"
                )
            for prompt_id, turn, cut in extraction.cut:
                context.log.warning(f"{prompt_id} turn {turn}: {cut_note(cut)}")
            capped = {
                "capped_answers": len(extraction.capped),
                "capped_claims_dropped": sum(c.dropped for c in extraction.capped),
                "capped": MetadataValue.json(
                    [f"{c.prompt_id}:{c.turn} {c.found} -> {c.kept}" for c in extraction.capped]
                ),
                "cut_sentences": sum(cut for _, _, cut in extraction.cut),
            }
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
                "extraction_key": key,
                "kept_earlier_extraction": kept,
                "max_claims_per_answer": config.detection.max_claims_per_answer,
                **capped,
                "preview": MetadataValue.md(
                    markdown_table(preview, ["prompt", "turn", "kind", "claim"])
                ),
            },
        )

    if batches == 1:
        return [claims, _evidence_asset(partitions), _verdicts_asset(partitions)]
    return [
        claims,
        _batched_evidence_asset(partitions, batches),
        _batched_verdicts_asset(partitions, batches),
    ]


_EVIDENCE_SPEC: dict[str, Any] = {
    "group_name": "evidence",
    "kinds": {"lancedb", "duckdb"},
    "description": "Top-k evidence per claim: hybrid search over the vault index, or the "
    "context the target logged with its answer when there is one.",
}
# The analysts' marks the verdicts apply (defs/marks_assets.py): lineage only, no value.
MARKS_ASSET = "analyst_marks"
_VERDICTS_SPEC: dict[str, Any] = {
    "group_name": "verification",
    "kinds": {"python", "duckdb"},
    "description": "A verdict per claim (supported / weakly supported / unsupported / "
    "contradicted / stale / unverifiable) with probability, justification and provenance; "
    "answers whose claims and evidence did not change keep their earlier verdicts.",
}


# -- evidence: the steps' bodies, shared by the one-step asset and the batched graph ---------


def _search(
    settings: AuditResource, index: VaultIndexResource, work: EvidenceWork
) -> FoundEvidence:
    config = settings.config
    return find_evidence(
        work,
        index.retriever(config.collection_policy()),
        index.embedder.get(),
        config.detection.evidence_top_k,
        config.terminology(),
    )


def _evidence_output(
    written: EvidenceWritten, claims: AuditRef, vault_index: IndexState
) -> Output[AuditRef]:
    return Output(
        claims,
        metadata={
            "audit_id": claims.audit_id,
            "claims": written.claims,
            "evidence_rows": written.rows,
            "from_vault": written.sources.get("vault", 0),
            "from_logged_context": written.sources.get("logged_context", 0),
            "from_glossary": written.sources.get("glossary", 0),
            "fallback_mode": written.fallback_mode,
            "vault_hash": vault_index.vault_hash,
        },
    )


def _evidence_asset(partitions: PartitionsDefinition) -> AssetsDefinition:
    @asset(name="evidence", partitions_def=partitions, **_EVIDENCE_SPEC)
    def evidence(
        settings: AuditResource,
        warehouse: WarehouseResource,
        index: VaultIndexResource,
        claims: AuditRef,
        vault_index: IndexState,
    ) -> Output[AuditRef]:
        store = warehouse.get()
        found = [
            _search(settings, index, work) for work in plan_evidence(store, claims.audit_id, 1)
        ]
        written = write_found_evidence(store, claims.audit_id, found)
        return _evidence_output(written, claims, vault_index)

    return evidence


def _batched_evidence_asset(partitions: PartitionsDefinition, batches: int) -> AssetsDefinition:
    """``evidence`` as a graph: plan -> one search step per batch -> one writer step."""

    @op(out=DynamicOut(EvidenceWork))
    def evidence_batches(
        warehouse: WarehouseResource, claims: AuditRef, vault_index: IndexState
    ) -> Iterator[DynamicOutput[EvidenceWork]]:
        """The audit's claims in batches of prompts (``vault_index`` only orders this step
        after the index is up to date)."""
        for work in plan_evidence(warehouse.get(), claims.audit_id, batches):
            yield DynamicOutput(work, mapping_key=f"batch_{work.batch}")

    @op(tags=CLUSTER_STEP_TAGS)  # a cluster executor's workers may run it
    def evidence_batch(
        settings: AuditResource, index: VaultIndexResource, work: EvidenceWork
    ) -> FoundEvidence:
        """One batch's vault searches; writes nothing."""
        return _search(settings, index, work)

    @op
    def evidence_writer(
        warehouse: WarehouseResource,
        claims: AuditRef,
        vault_index: IndexState,
        found: list[FoundEvidence],
    ) -> Output[AuditRef]:
        """Every batch's evidence, written in one transaction."""
        written = write_found_evidence(warehouse.get(), claims.audit_id, found)
        return _evidence_output(written, claims, vault_index)

    @graph_asset(name="evidence", partitions_def=partitions, **_EVIDENCE_SPEC)
    def evidence(claims: Any, vault_index: Any) -> Any:  # composition handles, not values
        found = evidence_batches(claims, vault_index).map(evidence_batch)
        return evidence_writer(claims, vault_index, found.collect())

    return evidence


# -- verdicts ----------------------------------------------------------------------------------


def _plan_verdicts(
    settings: AuditResource,
    warehouse: WarehouseResource,
    index: VaultIndexResource,
    judge_key: JudgeKeyResource,
    evidence: AuditRef,
    vault_index: IndexState,
    batches: int,
) -> tuple[PlannedVerification, list[VerificationWork], Verifier]:
    config = settings.config
    verifier = build_verifier(
        config.detection, index.embedder.get(), judge_key.api_key, config.reader_settings
    )
    planned, work = plan_verdicts(
        warehouse.get(),
        evidence.audit_id,
        target=evidence.target,
        verifier=verifier,
        verifier_id=verifier_identity(verifier, config.detection),
        vault_state=vault_index.vault_hash,
        batches=batches,
    )
    return planned, work, verifier


def _verdicts_output(
    log: DagsterLogManager,
    run: Verification,
    planned: PlannedVerification,
    evidence: AuditRef,
    vault_index: IndexState,
) -> Output[AuditRef]:
    results = run.verdicts
    spent = sum((v.usage for v in results), LLMUsage())
    labels = Counter(str(v.label) for v in results)
    deciders = Counter(v.decided_by for v in results)
    log.info(f"verdicts: {dict(labels)}")
    worst = sorted(
        ((v, c) for c, v in zip(planned.claims, results, strict=True) if str(v.label) in _WORST),
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
            "verifier": planned.verifier,
            "verifier_quality": planned.verifier_quality,
            "verifier_stages": stages_line(json.loads(planned.verifier_chain)["stages"]),
            # Which check decided each verdict, and how many a second stage (judge or reader)
            # was asked about: the claims whose specifics are grounded and reading uncertain.
            **{f"decided_by_{name}": count for name, count in sorted(deciders.items())},
            # Verdicts analysts' marks set, and marks whose evidence changed since.
            "set_by_marks": sum(v.decided_by == "mark" for v in results),
            # Answers the answer-level model reads as hallucinated while no claim shows it:
            # flagged for review, not counted by the gates.
            "suspect_answers": sum(v.answer_suspect for v in results),
            "marks_no_longer_apply": sum(
                v.decided_by != "mark" and NO_LONGER_APPLIES in v.justification for v in results
            ),
            "sent_to_second_stage": sum(
                v.decided_by in SECOND_STAGE or v.judge_calls > 0 for v in results
            ),
            "judge_calls": spent.calls,
            "judge_prompt_tokens": spent.prompt_tokens,
            "judge_completion_tokens": spent.completion_tokens,
            "judge_cost_usd": spent.cost_usd,
            "worst_claims": MetadataValue.md(
                markdown_table(preview, ["prompt", "label", "p_supported", "claim"])
            ),
        },
    )


def _verdicts_asset(partitions: PartitionsDefinition) -> AssetsDefinition:
    @asset(name="verdicts", partitions_def=partitions, deps=[MARKS_ASSET], **_VERDICTS_SPEC)
    def verdicts(
        context: AssetExecutionContext,
        settings: AuditResource,
        warehouse: WarehouseResource,
        index: VaultIndexResource,
        judge_key: JudgeKeyResource,
        evidence: AuditRef,
        vault_index: IndexState,
    ) -> Output[AuditRef]:
        planned, work, verifier = _plan_verdicts(
            settings, warehouse, index, judge_key, evidence, vault_index, batches=1
        )
        fresh = [verify_work(batch, verifier) for batch in work]
        run = write_planned_verdicts(
            warehouse.get(),
            evidence.audit_id,
            planned,
            fresh,
            settings.config.terminology(),
            verifier,
        )
        return _verdicts_output(context.log, run, planned, evidence, vault_index)

    return verdicts


def _batched_verdicts_asset(partitions: PartitionsDefinition, batches: int) -> AssetsDefinition:
    """``verdicts`` as a graph: plan (carry-over lookups) -> one verification step per batch of
    answers left to verify -> one writer step."""

    @op(
        ins={"analyst_marks": In(Nothing)},
        out={"planned": Out(PlannedVerification), "work": DynamicOut(VerificationWork)},
    )
    def verdict_batches(
        settings: AuditResource,
        warehouse: WarehouseResource,
        index: VaultIndexResource,
        judge_key: JudgeKeyResource,
        evidence: AuditRef,
        vault_index: IndexState,
    ) -> Iterator[Output[PlannedVerification] | DynamicOutput[VerificationWork]]:
        """What is carried over, and the answers left to verify in batches of prompts."""
        planned, work, _ = _plan_verdicts(
            settings, warehouse, index, judge_key, evidence, vault_index, batches
        )
        yield Output(planned, output_name="planned")
        for batch in work:
            yield DynamicOutput(batch, output_name="work", mapping_key=f"batch_{batch.batch}")

    @op(tags=CLUSTER_STEP_TAGS)  # a cluster executor's workers may run it
    def verdict_batch(
        settings: AuditResource,
        index: VaultIndexResource,
        judge_key: JudgeKeyResource,
        work: VerificationWork,
    ) -> dict[str, Verdict]:
        """One batch's verdicts; writes nothing."""
        config = settings.config
        verifier = build_verifier(
            config.detection, index.embedder.get(), judge_key.api_key, config.reader_settings
        )
        return verify_work(work, verifier)

    @op
    def verdict_writer(
        context: OpExecutionContext,
        settings: AuditResource,
        warehouse: WarehouseResource,
        index: VaultIndexResource,
        judge_key: JudgeKeyResource,
        evidence: AuditRef,
        vault_index: IndexState,
        planned: PlannedVerification,
        fresh: list[dict[str, Verdict]],
    ) -> Output[AuditRef]:
        """Every claim's verdict, carried over or from a batch, settled by the chain's glossary
        stages, written in one transaction."""
        config = settings.config
        verifier = build_verifier(
            config.detection, index.embedder.get(), judge_key.api_key, config.reader_settings
        )
        run = write_planned_verdicts(
            warehouse.get(), evidence.audit_id, planned, fresh, config.terminology(), verifier
        )
        return _verdicts_output(context.log, run, planned, evidence, vault_index)

    @graph_asset(
        name="verdicts",
        partitions_def=partitions,
        ins={MARKS_ASSET: AssetIn(MARKS_ASSET, dagster_type=Nothing)},
        **_VERDICTS_SPEC,
    )
    def verdicts(evidence: Any, vault_index: Any, analyst_marks: Any) -> Any:  # handles
        planned, work = verdict_batches(evidence, vault_index, analyst_marks)
        fresh = work.map(verdict_batch)
        return verdict_writer(evidence, vault_index, planned, fresh.collect())

    return verdicts
