"""A snapshot of the Dagster definitions' structure, so structural changes show up in review.

Asset keys, groups, kinds, partitions, dependencies and checks; jobs and what they select;
schedules, sensors and resource keys, all built from the repository's ``audit.yaml``. A change
to any of them fails this test until the snapshot file is regenerated and committed, so the
diff of ``definitions_snapshot.json`` shows a reviewer what the graph gained or lost:

    UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest \
        audit_pipeline_tests/defs/test_definitions_snapshot.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from dagster import Definitions

from audit_pipeline.definitions import defs as entry_point
from audit_pipeline.defs.graph import build_definitions
from audit_pipeline_tests.helpers import REPO_ROOT

SNAPSHOT = Path(__file__).with_name("definitions_snapshot.json")


def definitions_structure(defs: Definitions) -> dict[str, Any]:
    """The reviewable shape of ``defs``: names and wiring, no descriptions or code."""
    graph = defs.resolve_asset_graph()
    checks: dict[str, list[dict[str, Any]]] = {}
    for check_key in graph.asset_check_keys:
        spec = graph.get_check_spec(check_key)
        checks.setdefault(check_key.asset_key.to_user_string(), []).append(
            {
                "name": check_key.name,
                "blocking": spec.blocking,
                "partitioned": spec.partitions_def is not None,
            }
        )
    assets = {}
    for spec in defs.resolve_all_asset_specs():
        key = spec.key.to_user_string()
        assets[key] = {
            "group": spec.group_name,
            "kinds": sorted(spec.kinds),
            "partitions": (
                None
                if spec.partitions_def is None
                else sorted(spec.partitions_def.get_partition_keys())
            ),
            "deps": sorted(dep.asset_key.to_user_string() for dep in spec.deps),
            "checks": sorted(checks.get(key, []), key=lambda check: check["name"]),
            "freshness": None if spec.freshness_policy is None else str(spec.freshness_policy),
        }
    jobs = {
        job.name: {
            "partitions": (
                None
                if job.partitions_def is None
                else sorted(job.partitions_def.get_partition_keys())
            ),
            "assets": sorted(key.to_user_string() for key in job.asset_layer.selected_asset_keys),
        }
        for job in defs.resolve_all_job_defs()
        if not job.name.startswith("__")  # Dagster's implicit all-assets job
    }
    schedules = {
        schedule.name: {
            "cron": schedule.cron_schedule,
            "timezone": schedule.execution_timezone,
            "job": schedule.job_name,
            "default_status": schedule.default_status.value,
        }
        for schedule in defs.schedules or []
    }
    sensors = {
        sensor.name: {
            "job": sensor.job_name,
            "minimum_interval_seconds": sensor.minimum_interval_seconds,
            "default_status": sensor.default_status.value,
        }
        for sensor in defs.sensors or []
    }
    return {
        "assets": dict(sorted(assets.items())),
        "jobs": dict(sorted(jobs.items())),
        "schedules": dict(sorted(schedules.items())),
        "sensors": dict(sorted(sensors.items())),
        "resources": sorted(defs.resources or {}),
    }


def test_the_definitions_match_the_reviewed_snapshot() -> None:
    structure = definitions_structure(build_definitions(REPO_ROOT / "audit.yaml"))
    text = json.dumps(structure, indent=2, sort_keys=False) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(text)

    assert json.loads(SNAPSHOT.read_text()) == structure, (
        "the Dagster definitions changed: review the difference, then regenerate "
        f"{SNAPSHOT.name} with UPDATE_SNAPSHOTS=1 and commit it"
    )


def test_the_entry_point_dagster_loads_builds_the_same_definitions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AUDIT_CONFIG", str(REPO_ROOT / "audit.yaml"))

    assert definitions_structure(entry_point()) == json.loads(SNAPSHOT.read_text())
