"""The weekly schedule and the vault / prompt-suite sensors, evaluated with Dagster's builders."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from dagster import (
    AssetMaterialization,
    DagsterInstance,
    SensorResult,
    SkipReason,
    build_schedule_context,
    build_sensor_context,
)

from audit_pipeline.config import AuditConfig, load_config
from audit_pipeline.defs.automation import (
    build_suite_sensor,
    build_vault_sensor,
    build_weekly_schedule,
    weekly_freshness,
)
from audit_pipeline_tests.helpers import REPO_ROOT

SUITE = REPO_ROOT / "data" / "prompt-suites" / "security-questionnaire.yaml"


def _config(tmp_path: Path, vault: Path, suite: Path, **extra: object) -> AuditConfig:
    data = {
        "vault": {"path": str(vault)},
        "suites": {"sq": str(suite)},
        "targets": {
            "recorded": {"type": "replay", "path": str(tmp_path / "answers.jsonl")},
            "bot": {"type": "vault_bot"},
        },
        **extra,
    }
    path = tmp_path / "audit.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_config(path)


@pytest.fixture
def instance() -> DagsterInstance:
    instance = DagsterInstance.ephemeral()
    # Only "recorded" has been audited: reverify must not be asked for "bot".
    instance.report_runless_asset_event(
        AssetMaterialization(asset_key="responses", partition="recorded")
    )
    return instance


def _evaluate(sensor, instance: DagsterInstance, cursor: str | None):  # type: ignore[no-untyped-def]
    return sensor(build_sensor_context(instance=instance, cursor=cursor))


def test_vault_sensor_requests_one_reverify_per_vault_state(
    tmp_path: Path, vault_copy: Path, instance: DagsterInstance
) -> None:
    sensor = build_vault_sensor(_config(tmp_path, vault_copy, SUITE))
    first = _evaluate(sensor, instance, None)  # no cursor and no indexed state yet
    assert isinstance(first, SensorResult)
    assert [r.partition_key for r in first.run_requests] == ["recorded"]
    cursor = first.cursor

    unchanged = _evaluate(sensor, instance, cursor)
    assert isinstance(unchanged, SkipReason)

    (vault_copy / "new-policy.md").write_text("# Vendor Policy\n\nVendors are reviewed yearly.\n")
    added = _evaluate(sensor, instance, cursor)
    assert isinstance(added, SensorResult) and len(added.run_requests) == 1
    assert added.cursor != cursor
    request = added.run_requests[0]
    assert request.partition_key == "recorded"
    assert request.run_key == f"vault:{added.cursor[:16]}:recorded"
    assert isinstance(_evaluate(sensor, instance, added.cursor), SkipReason)

    edited = vault_copy / "encryption-standard.md"
    edited.write_text(edited.read_text() + "\nAn extra sentence.\n")
    changed = _evaluate(sensor, instance, added.cursor)
    assert isinstance(changed, SensorResult) and len(changed.run_requests) == 1
    assert changed.cursor not in (cursor, added.cursor)

    (vault_copy / "new-policy.md").unlink()
    removed = _evaluate(sensor, instance, changed.cursor)
    assert isinstance(removed, SensorResult) and len(removed.run_requests) == 1


def test_vault_sensor_baseline_is_the_last_indexed_state(
    tmp_path: Path, vault_copy: Path, instance: DagsterInstance
) -> None:
    sensor = build_vault_sensor(_config(tmp_path, vault_copy, SUITE))
    state = _evaluate(sensor, DagsterInstance.ephemeral(), None).cursor
    instance.report_runless_asset_event(
        AssetMaterialization(asset_key="vault_documents", metadata={"vault_hash": state})
    )
    assert isinstance(_evaluate(sensor, instance, None), SkipReason)


def test_vault_sensor_skips_an_unreadable_vault(tmp_path: Path, instance: DagsterInstance) -> None:
    sensor = build_vault_sensor(_config(tmp_path, tmp_path / "missing", SUITE))
    result = _evaluate(sensor, instance, None)
    assert isinstance(result, SkipReason)
    assert "vault directory not found" in (result.skip_message or "")


def test_suite_sensor_runs_a_changed_suite_on_every_target(
    tmp_path: Path, vault_copy: Path, instance: DagsterInstance
) -> None:
    suite = tmp_path / "suite.yaml"
    shutil.copy(SUITE, suite)
    sensor = build_suite_sensor(_config(tmp_path, vault_copy, suite))
    baseline = _evaluate(sensor, instance, None)
    assert isinstance(baseline, SensorResult) and baseline.run_requests == []
    assert isinstance(_evaluate(sensor, instance, baseline.cursor), SensorResult)

    suite.write_text(
        suite.read_text().replace("Do you have a current SOC 2", "Is there a SOC 2", 1)
    )
    changed = _evaluate(sensor, instance, baseline.cursor)
    assert sorted(r.partition_key for r in changed.run_requests) == ["bot", "recorded"]
    assert all(
        r.run_config["ops"]["prompt_suite"]["config"]["suite"] == "sq" for r in changed.run_requests
    )
    assert changed.cursor != baseline.cursor
    again = _evaluate(sensor, instance, changed.cursor)
    assert again.run_requests == []

    suite.write_text("prompts:\n  - id: X\n    category: c\n")  # no prompt: invalid
    broken = _evaluate(sensor, instance, changed.cursor)
    assert broken.run_requests == []
    assert "sq" in (broken.skip_reason.skip_message or "")
    assert broken.cursor == changed.cursor  # the broken version is not recorded


def test_weekly_schedule_audits_every_target_without_cache(
    tmp_path: Path, vault_copy: Path
) -> None:
    config = _config(
        tmp_path,
        vault_copy,
        SUITE,
        automation={"weekly_audit": {"cron": "0 8 * * 1", "timezone": "UTC"}},
    )
    schedule = build_weekly_schedule(config)
    assert schedule.cron_schedule == "0 8 * * 1"
    assert schedule.execution_timezone == "UTC"
    when = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)  # a Monday
    requests = list(schedule(build_schedule_context(scheduled_execution_time=when)))
    assert sorted(r.partition_key for r in requests) == ["bot", "recorded"]
    assert {r.run_key for r in requests} == {
        "weekly:2026-11-23T08:00:bot",
        "weekly:2026-11-23T08:00:recorded",
    }
    assert all(r.run_config["ops"]["responses"]["config"]["use_cache"] is False for r in requests)


def test_the_weekly_audit_has_a_freshness_check_only_while_it_is_enabled(
    tmp_path: Path, vault_copy: Path
) -> None:
    enabled = weekly_freshness(_config(tmp_path, vault_copy, SUITE))
    disabled = weekly_freshness(
        _config(tmp_path, vault_copy, SUITE, automation={"weekly_audit": {"enabled": False}})
    )

    assert enabled is not None
    assert enabled.fail_window.to_timedelta() == timedelta(days=8)
    assert disabled is None
