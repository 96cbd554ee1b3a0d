"""Jobs, the weekly schedule and the change sensors.

- ``full_audit``: every asset for one target partition, calling the target afresh.
- ``reverify``: re-index the vault and recompute claims → evidence → verdicts → assertions →
  risk → report for the target's latest responses, without calling the target. Claims come
  from the answers and the extractor, not from the vault: the ``claims`` step keeps the stored
  ones when the extractor and its settings are unchanged (an LLM extractor is not paid again).
- ``weekly_full_audit``: ``full_audit`` for every target, bypassing the response cache.
- ``vault_change_sensor``: the vault's content hashes changed → ``reverify`` every target that
  has responses; the run key names the vault state, so one state is re-verified once.
- ``suite_change_sensor``: a suite's content changed → ``full_audit`` for it on every target;
  unchanged prompts may be answered from the response cache.
- ``rescore``: apply the analysts' marks to a target's latest audit and score it again (gates,
  decision, report) without calling the target or verifying anything: every verdict is carried
  over, the mark stage settles them.
- ``marks_sensor``: new marks → ``rescore`` for each target whose latest audit holds a marked
  claim (or was marked); the run key names the newest mark, so marks are re-scored once.

All runs carry the same concurrency tag; the instance's run queue (see the Makefile's
``dagster.yaml``) runs them one at a time, so two runs never write the index or the warehouse at
once.
"""

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import TYPE_CHECKING

from dagster import (
    AssetKey,
    AssetSelection,
    DefaultScheduleStatus,
    DefaultSensorStatus,
    FreshnessPolicy,
    RunRequest,
    ScheduleDefinition,
    ScheduleEvaluationContext,
    SensorDefinition,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    define_asset_job,
    schedule,
    sensor,
)

from audit_pipeline.config import AuditConfig
from audit_pipeline.suites.errors import SuiteFileError, SuiteValidationError
from audit_pipeline.suites.loader import load_suite
from audit_pipeline.vault.documents import VaultError, scan_vault
from audit_pipeline.warehouse.mark_tables import latest_audits_with, marks_after
from audit_pipeline.warehouse.store import Warehouse, WarehouseError

if TYPE_CHECKING:  # what define_asset_job returns; Dagster does not export the name
    from dagster._core.definitions.unresolved_asset_job_definition import (
        UnresolvedAssetJobDefinition,
    )

CONCURRENCY_TAG = {"audit-pipeline/writer": "warehouse"}
REVERIFY_STAGES = (
    "claims",
    "evidence",
    "verdicts",
    "response_validations",
    "assertion_results",
    "risk_scores",
    "audit_report",
    "audit_metrics",
)
RESCORE_STAGES = (
    "analyst_marks",
    "verdicts",
    "response_validations",
    "assertion_results",
    "risk_scores",
    "audit_report",
    "audit_metrics",
)
FRESH_CALLS = {"ops": {"responses": {"config": {"use_cache": False}}}}


def build_jobs() -> "list[UnresolvedAssetJobDefinition]":
    """The audit jobs; each is partitioned by target because its assets are (Dagster infers
    a job's partitions from its selection)."""
    full_audit = define_asset_job(
        "full_audit",
        # The retrieval evaluation has its own job: a golden-set problem never fails an audit.
        selection=AssetSelection.all() - AssetSelection.groups("evaluation"),
        tags=CONCURRENCY_TAG,
        description="Index the vault, call the target with the suite, verify and score.",
    )
    reverify = define_asset_job(
        "reverify",
        selection=AssetSelection.groups("vault", "index") | AssetSelection.assets(*REVERIFY_STAGES),
        tags=CONCURRENCY_TAG,
        description="Re-index the vault and re-verify the target's latest responses "
        "(no target calls).",
    )
    rescore = define_asset_job(
        "rescore",
        selection=AssetSelection.assets(*RESCORE_STAGES),
        tags=CONCURRENCY_TAG,
        description="Apply new analysts' marks to the target's latest audit and score it "
        "again (gates, decision, report): no target calls, no verification.",
    )
    return [full_audit, reverify, rescore]


def weekly_freshness(config: AuditConfig) -> FreshnessPolicy | None:
    """The freshness check on the weekly audit: ``risk_scores`` older than eight days fails
    (a week plus a day's grace; warned after seven and a half), so a schedule that stopped, or
    weekly audits that keep failing, show up in the UI instead of the last result standing
    silently. None when the weekly audit is off. Evaluated by the daemon (``freshness:`` in
    ``dagster.yaml``)."""
    if not config.automation.weekly_audit.enabled:
        return None
    return FreshnessPolicy.time_window(
        fail_window=timedelta(days=8), warn_window=timedelta(days=7, hours=12)
    )


def _status(enabled: bool) -> DefaultSensorStatus:
    return DefaultSensorStatus.RUNNING if enabled else DefaultSensorStatus.STOPPED


def build_weekly_schedule(config: AuditConfig) -> ScheduleDefinition:
    settings = config.automation.weekly_audit
    targets = sorted(config.targets)

    @schedule(
        name="weekly_full_audit",
        job_name="full_audit",
        cron_schedule=settings.cron,
        execution_timezone=settings.timezone,
        default_status=(
            DefaultScheduleStatus.RUNNING if settings.enabled else DefaultScheduleStatus.STOPPED
        ),
        description="Audit every target with fresh calls (no response cache).",
    )
    def weekly_full_audit(context: ScheduleEvaluationContext) -> Iterator[RunRequest]:
        tick = context.scheduled_execution_time.strftime("%Y-%m-%dT%H:%M")
        for target in targets:
            yield RunRequest(
                run_key=f"weekly:{tick}:{target}",
                partition_key=target,
                run_config=FRESH_CALLS,
                tags=CONCURRENCY_TAG,
            )

    return weekly_full_audit


def _last_metadata(context: SensorEvaluationContext, asset: str, key: str) -> str | None:
    event = context.instance.get_latest_materialization_event(AssetKey(asset))
    if event is None or event.asset_materialization is None:
        return None
    value = event.asset_materialization.metadata.get(key)
    return None if value is None else str(value.value)


def build_vault_sensor(config: AuditConfig) -> SensorDefinition:
    settings = config.automation.vault_sensor

    @sensor(
        name="vault_change_sensor",
        job_name="reverify",
        minimum_interval_seconds=settings.interval_s,
        default_status=_status(settings.enabled),
        description="Re-verify every audited target when a vault file is added, changed or "
        "removed.",
    )
    def vault_change_sensor(context: SensorEvaluationContext) -> SensorResult | SkipReason:
        try:
            state = scan_vault(
                config.vault_path,
                config.vault.include,
                config.vault.max_file_bytes,
                config.vault.follow_external_symlinks,
            ).state_hash
        except VaultError as error:
            return SkipReason(f"vault unreadable: {error}")
        # Without a cursor, compare with the vault state the index was last built from.
        previous = context.cursor or _last_metadata(context, "vault_documents", "vault_hash")
        if state == previous:
            return SkipReason("vault unchanged")
        audited = sorted(context.instance.get_materialized_partitions(AssetKey("responses")))
        requests = [
            RunRequest(
                run_key=f"vault:{state[:16]}:{target}", partition_key=target, tags=CONCURRENCY_TAG
            )
            for target in audited
            if target in config.targets
        ]
        if not requests:
            return SensorResult(
                skip_reason="vault changed; no target has been audited yet", cursor=state
            )
        return SensorResult(run_requests=requests, cursor=state)

    return vault_change_sensor


def build_suite_sensor(config: AuditConfig) -> SensorDefinition:
    settings = config.automation.suite_sensor
    targets = sorted(config.targets)

    @sensor(
        name="suite_change_sensor",
        job_name="full_audit",
        minimum_interval_seconds=settings.interval_s,
        default_status=_status(settings.enabled),
        description="Audit every target with a prompt suite whose content changed.",
    )
    def suite_change_sensor(context: SensorEvaluationContext) -> SensorResult:
        seen: dict[str, str] = json.loads(context.cursor) if context.cursor else {}
        current = dict(seen)
        requests: list[RunRequest] = []
        problems: list[str] = []
        for name in sorted(config.suites):
            try:
                suite_hash = load_suite(config.suite_path(name)[1]).content_hash
            except (OSError, SuiteFileError, SuiteValidationError) as error:
                problems.append(f"{name}: {error}")
                continue  # not recorded: the fixed file will be picked up
            baseline = seen.get(name)
            if baseline is None and _last_metadata(context, "prompt_suite", "suite") == name:
                baseline = _last_metadata(context, "prompt_suite", "suite_hash")
            current[name] = suite_hash
            if baseline is None or baseline == suite_hash:
                continue  # first sight of this suite: remember it, nothing to re-run
            requests.extend(
                RunRequest(
                    run_key=f"suite:{name}:{suite_hash[:16]}:{target}",
                    partition_key=target,
                    run_config={"ops": {"prompt_suite": {"config": {"suite": name}}}},
                    tags=CONCURRENCY_TAG,
                )
                for target in targets
            )
        for problem in problems:
            context.log.warning(f"prompt suite not loadable: {problem}")
        reason = None if requests else ("; ".join(problems) or "no suite changed")
        return SensorResult(
            run_requests=requests, cursor=json.dumps(current, sort_keys=True), skip_reason=reason
        )

    return suite_change_sensor


def build_marks_sensor(config: AuditConfig) -> SensorDefinition:
    settings = config.automation.marks_sensor

    @sensor(
        name="marks_sensor",
        job_name="rescore",
        minimum_interval_seconds=settings.interval_s,
        default_status=_status(settings.enabled),
        description="Re-score the latest audit of every target a new analyst's mark touches.",
    )
    def marks_sensor(context: SensorEvaluationContext) -> SensorResult | SkipReason:
        # The read snapshot: a sensor never holds the live warehouse (writers wait for none).
        snapshot = Warehouse(config.duckdb_path).snapshot_path
        if not snapshot.exists():
            return SkipReason("no warehouse yet")
        seen = int(context.cursor or 0)
        try:
            store = Warehouse(snapshot)
            with store.reading():
                new = marks_after(store, seen)
                affected = latest_audits_with(store, [m for _, m in new])
        except WarehouseError as error:
            return SkipReason(f"warehouse unreadable: {error}")
        if not new:
            return SkipReason("no new marks")
        newest = new[-1][0]
        requests = [
            RunRequest(
                run_key=f"marks:{newest}:{target}",
                partition_key=target,
                tags={**CONCURRENCY_TAG, "audit-pipeline/rescored-audit": audit_id},
            )
            for target, audit_id in sorted(affected.items())
            if target in config.targets
        ]
        if not requests:
            return SensorResult(
                skip_reason=f"{len(new)} new mark(s); no configured target's audit holds them",
                cursor=str(newest),
            )
        return SensorResult(run_requests=requests, cursor=str(newest))

    return marks_sensor
