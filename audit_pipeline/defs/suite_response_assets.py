"""Suites and responses assets (groups `suites` and `responses`): the prompt suite and the
target's responses, the first two stages of every audit.

``responses`` is partitioned by target (the partition key is the target's name in
``audit.yaml``), so the UI shows each audited system's history on its own and the weekly
schedule can audit every target. The asset starts a new audit: it mints the ``audit_id`` that
every later stage's rows carry.
"""

import logging
from dataclasses import dataclass

from dagster import (
    AssetExecutionContext,
    AssetsDefinition,
    Config,
    MetadataValue,
    Output,
    PartitionsDefinition,
    asset,
)
from pydantic import Field

from audit_pipeline.defs.resources import (
    AuditResource,
    VaultIndexResource,
    WarehouseResource,
)
from audit_pipeline.defs.vault_index_assets import IndexState
from audit_pipeline.records.audits import AuditRef
from audit_pipeline.reports.markdown import markdown_table
from audit_pipeline.runs.input_tables import write_suite_prompts
from audit_pipeline.suites.fuzz import fuzz_suite, parse_transformations
from audit_pipeline.suites.loader import load_suite
from audit_pipeline.suites.prompt_suite import PromptSuite
from audit_pipeline.targets.base import close_target
from audit_pipeline.targets.cache import ResponseCache
from audit_pipeline.targets.expected_time import answering_line
from audit_pipeline.targets.kinds import build_target
from audit_pipeline.targets.replay import check_recording
from audit_pipeline.targets.suite_runner import run_suite
from audit_pipeline.validation.guardrail_validator import guardrail_validator
from audit_pipeline.warehouse.audit_tables import (
    check_resumable,
    new_audit_id,
    start_audit,
    write_responses,
)

PROGRESS_LOG = logging.getLogger("audit_pipeline.progress")
PROGRESS_LOG.propagate = False  # per-turn ticks are for progress bars, not the JSON log


@dataclass(frozen=True)
class SelectedSuite:
    """A suite together with the name it is configured under in audit.yaml."""

    name: str
    suite: PromptSuite


class SuiteSelection(Config):
    """Which configured suite to load (default: ``defaults.suite`` in audit.yaml), and fuzz
    transformations to add to the suite's own ``fuzz:`` (``--fuzz``)."""

    suite: str | None = None
    fuzz: list[str] = Field(default_factory=list, description="fuzz transformations to add")


class ResponsesConfig(Config):
    """Per-run choices for the target calls."""

    categories: list[str] = Field(default_factory=list, description="only these categories")
    ids: list[str] = Field(default_factory=list, description="only these prompt ids")
    use_cache: bool | None = Field(
        default=None, description="answer unchanged prompts from the response cache"
    )
    concurrency: int | None = Field(default=None, description="calls in flight at once")
    resume_audit_id: str | None = Field(
        default=None,
        description="continue this unfinished audit of the same target instead of starting a "
        "new one (its rows are replaced, answers already given come from the cache)",
    )


@asset(
    group_name="suites",
    kinds={"python", "duckdb"},
    description="The validated, content-hashed prompt suite (one DuckDB row per turn).",
)
def prompt_suite(
    config: SuiteSelection, settings: AuditResource, warehouse: WarehouseResource
) -> Output[SelectedSuite]:
    audit_config = settings.config
    name, path = audit_config.suite_path(config.suite)
    suite = load_suite(path)
    suite = fuzz_suite(suite, (*suite.fuzz, *parse_transformations(config.fuzz)))
    write_suite_prompts(warehouse.get(), name, suite)
    counts = [
        {"category": c, "prompts": sum(p.category == c for p in suite.prompts)}
        for c in suite.categories
    ]
    return Output(
        SelectedSuite(name, suite),
        metadata={
            "suite": name,
            "prompts": len(suite.prompts),
            "turns": sum(len(p.turns) for p in suite.prompts),
            "suite_hash": suite.content_hash,
            "fuzz": ", ".join(suite.fuzz) or "none",
            "by_category": MetadataValue.md(markdown_table(counts, ["category", "prompts"])),
        },
    )


def build_responses_asset(partitions: PartitionsDefinition) -> AssetsDefinition:
    @asset(
        group_name="responses",
        kinds={"python", "duckdb"},
        partitions_def=partitions,
        description="Every suite turn sent to the target (partition) — one row per turn, "
        "failures included. Starts a new audit.",
    )
    def responses(
        context: AssetExecutionContext,
        config: ResponsesConfig,
        settings: AuditResource,
        warehouse: WarehouseResource,
        index: VaultIndexResource,
        prompt_suite: SelectedSuite,
        vault_index: IndexState,
    ) -> Output[AuditRef]:
        audit_config = settings.config
        target_name, target_config = audit_config.target_config(context.partition_key)
        store = warehouse.get()
        if config.resume_audit_id:
            check_resumable(store, config.resume_audit_id, target_name)
            audit_id = config.resume_audit_id
        else:
            # A re-execution of a Dagster run (from failure) continues the same audit.
            audit_id = new_audit_id(target_name, context.run.root_run_id or context.run.run_id)
        ref = AuditRef(
            audit_id=audit_id,
            target=target_name,
            suite=prompt_suite.name,
            suite_hash=prompt_suite.suite.content_hash,
            categories=tuple(config.categories),
            ids=tuple(config.ids),
        )
        suite = prompt_suite.suite.asked_in(ref)
        retriever = index.retriever(audit_config.collection_policy())
        target = build_target(
            target_name,
            target_config,
            retriever=retriever,
            base_dir=audit_config.base_dir,
            validator=guardrail_validator(target_config, index.embedder.get(), retriever),
        )
        try:
            for warning in check_recording(target, suite, prompt_suite.suite):
                context.log.warning(warning)
            # Only a usable recording starts an audit: a refused one leaves no "running" row.
            start_audit(
                store,
                ref,
                vault_hash=vault_index.vault_hash,
                config_hash=audit_config.fingerprint(),
                dagster_run_id=context.run.run_id,
            )
        except Exception:
            close_target(target)
            raise
        total_turns = sum(len(p.turns) for p in suite.prompts)
        step = max(1, total_turns // 10)

        def progress(done: int, total: int) -> None:
            # The CLI draws a progress bar from this logger; the UI shows the step log.
            PROGRESS_LOG.info("answered", extra={"done": done, "total": total})
            if done == total or done % step == 0:
                context.log.info(f"{target_name}: {done}/{total} turns answered")

        use_cache = (
            audit_config.cache.use_by_default if config.use_cache is None else config.use_cache
        )
        context.log.info(answering_line(target_name, target_config, total_turns, use_cache))
        try:
            records = run_suite(
                suite,
                target,
                audit_id=ref.audit_id,
                concurrency=config.concurrency or target_config.concurrency,
                cache=ResponseCache(audit_config.cache_dir),
                use_cache=use_cache,
                progress=progress,
                max_retries=target_config.max_retries,
            )
        finally:
            close_target(target)
        write_responses(store, ref.audit_id, records)
        errors = [r for r in records if r.error]
        # The wait of this audit: a cached answer's latency is that of the call that made it.
        asked = [r.latency_ms or 0 for r in records if not r.from_cache]
        latency = {"mean_latency_ms": round(sum(asked) / len(asked), 1)} if asked else {}
        preview = [
            {"prompt": r.prompt_id, "turn": r.turn, "error": r.error, "response": r.response}
            for r in records[:40]
        ]
        return Output(
            ref,
            metadata={
                "audit_id": ref.audit_id,
                "target": target_name,
                "responses": len(records),
                "errors": len(errors),
                "from_cache": sum(r.from_cache for r in records),
                **latency,
                "preview": MetadataValue.md(
                    markdown_table(preview, ["prompt", "turn", "error", "response"])
                ),
            },
        )

    return responses
