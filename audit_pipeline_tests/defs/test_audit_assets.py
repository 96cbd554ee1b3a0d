"""The audit graph materialised with Dagster: idempotent re-runs, reverify, a garbage judge."""

from __future__ import annotations

from pathlib import Path

import pytest
from dagster import AssetCheckKey, AssetKey, DagsterInstance
from dagster._core.event_api import PartitionKeyFilter

from audit_pipeline.config import load_config
from audit_pipeline.defs.graph import build_definitions
from audit_pipeline.defs.scoring_report_assets import DECISION_TAG, RULE_TAG
from audit_pipeline.verification.detection_settings import DEFAULT_CHECKS
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.helpers import FAITHFUL_IDS, HALLUCINATED_IDS, write_audit_config
from audit_pipeline_tests.verification.fake_llm import ScriptedLLM, scripted_provider

pytestmark = pytest.mark.slow

IDS = [*FAITHFUL_IDS[:3], *HALLUCINATED_IDS[:2]]
RUN_CONFIG = {"ops": {"responses": {"config": {"ids": IDS}}}}
STAGES = ("claims", "evidence", "verdicts", "assertion_results", "risk_scores")


def _counts(warehouse: Warehouse, audit_id: str) -> dict[str, int]:
    return {
        table: warehouse.scalar(f"SELECT count(*) FROM {table} WHERE audit_id = ?", [audit_id])
        for table in ("responses", *STAGES)
    }


def test_reverify_recomputes_the_same_audit_without_duplicates(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    config_path = write_audit_config(tmp_path, sample_index_dir)
    defs = build_definitions(config_path)
    (tmp_path / "dagster").mkdir()
    instance = DagsterInstance.local_temp(str(tmp_path / "dagster"))

    full = defs.resolve_job_def("full_audit").execute_in_process(
        partition_key="recorded", instance=instance, run_config=RUN_CONFIG
    )
    assert full.success
    warehouse = Warehouse(load_config(config_path).duckdb_path)
    audit_id = warehouse.scalar("SELECT audit_id FROM audits")
    before = _counts(warehouse, audit_id)
    assert before["responses"] == len(IDS) and before["claims"] > 0
    assert before["verdicts"] == before["claims"]
    labels_before = warehouse.query(
        "SELECT claim_id, label FROM verdicts WHERE audit_id = ? ORDER BY claim_id", [audit_id]
    )

    again = defs.resolve_job_def("reverify").execute_in_process(
        partition_key="recorded", instance=instance
    )
    assert again.success
    assert warehouse.scalar("SELECT count(*) FROM audits") == 1  # no new audit, no target call
    assert _counts(warehouse, audit_id) == before  # every stage replaced its own rows
    labels_after = warehouse.query(
        "SELECT claim_id, label FROM verdicts WHERE audit_id = ? ORDER BY claim_id", [audit_id]
    )
    assert labels_after.equals(labels_before)
    status = warehouse.query("SELECT status, decision FROM audits").iloc[0]
    assert status["status"] == "finished" and status["decision"] in ("deploy", "warn", "block")
    # Each run stored its own outputs; copies that a later finished run replaced are gone.
    stored = tmp_path / "dagster" / "storage" / "audit_runs"
    assert len(list(stored.glob("*/claims/recorded"))) == 1
    assert len(list(stored.glob("*/responses/recorded"))) == 1  # reverify read, not rewrote
    checks = {c.check_name: c.passed for c in again.get_asset_check_evaluations()}
    assert set(checks) >= {f"gate_{g}" for g in ("risk", "completeness", "hallucinations")}
    assert checks["gate_hallucinations"] is False  # the recorded answers include fabrications


def test_reverify_keeps_the_claims_unless_their_extraction_changed(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    """The answers of an audit never change, so re-verifying it after a vault change must not
    pay an LLM extractor again; a changed extraction setting does extract again."""
    extractor = ScriptedLLM(["not json"])  # every answer falls back to sentences, after 2 calls
    instance = DagsterInstance.ephemeral()

    def run(job: str, **detection: object) -> set[str]:
        config_path = write_audit_config(
            tmp_path,
            sample_index_dir,
            detection={"extractor": "llm", "judge": {"model": model}, **detection},
        )
        result = (
            build_definitions(config_path)
            .resolve_job_def(job)
            .execute_in_process(
                partition_key="recorded",
                instance=instance,
                run_config=RUN_CONFIG if job == "full_audit" else None,
            )
        )
        assert result.success
        keys = Warehouse(load_config(config_path).duckdb_path).query(
            "SELECT DISTINCT extraction_key FROM claims"
        )
        return set(keys["extraction_key"])

    with scripted_provider(extractor, provider="scripted-extractor") as model:
        first = run("full_audit")
        claims = Warehouse(tmp_path / "warehouse" / "audit.duckdb").query(
            "SELECT * FROM claims ORDER BY claim_id"
        )
        assert len(claims) > 0 and len(extractor.calls) == 2 * len(IDS)
        assert run("reverify") == first
        assert len(extractor.calls) == 2 * len(IDS)  # not asked again
        kept = Warehouse(tmp_path / "warehouse" / "audit.duckdb").query(
            "SELECT * FROM claims ORDER BY claim_id"
        )
        assert kept.equals(claims)
        changed = run("reverify", max_claims_per_answer=3)
        assert changed != first and len(extractor.calls) == 4 * len(IDS)


@pytest.mark.parametrize("verifier", ["llm", "cascade"])
def test_a_judge_returning_garbage_gives_unverifiable_and_the_audit_completes(
    tmp_path: Path, sample_index_dir: Path, verifier: str
) -> None:
    garbage = ScriptedLLM(["I think so?? {not json"])
    with scripted_provider(garbage, provider="garbage-judge") as model:
        config_path = write_audit_config(
            tmp_path,
            sample_index_dir,
            detection={"verifier": verifier, "cascade_band": [0.0, 1.0], "judge": {"model": model}},
        )
        defs = build_definitions(config_path)
        result = defs.resolve_job_def("full_audit").execute_in_process(
            partition_key="recorded",
            instance=DagsterInstance.ephemeral(),
            run_config=RUN_CONFIG,
        )
    assert result.success
    assert garbage.calls  # the judge was really asked, through litellm
    warehouse = Warehouse(load_config(config_path).duckdb_path)
    verdicts = warehouse.query(
        "SELECT label, decided_by, justification, judge_calls, prompt_tokens FROM verdicts"
    )
    assert len(verdicts) > 0
    # Each claim sent went to the judge: a reply and one repair each, both charged and summed.
    # The cascade sends every claim the learned reading decided (the band is all of [0, 1]);
    # a claim a check settled (a clashing or fabricated specific) is never sent.
    asked = verdicts[verdicts["judge_calls"] > 0]
    assert (asked["judge_calls"] == 2).all()
    audit_row = warehouse.query("SELECT judge_calls, judge_prompt_tokens FROM audits").iloc[0]
    assert audit_row["judge_calls"] == len(garbage.calls) == 2 * len(asked)
    assert audit_row["judge_prompt_tokens"] == verdicts["prompt_tokens"].sum() > 0
    if verifier == "llm":
        assert len(asked) == len(verdicts)
        assert set(verdicts["label"]) == {"unverifiable"}
        audit = warehouse.query("SELECT status, decision, risk FROM audits").iloc[0]
        assert audit["status"] == "finished"
        assert audit["decision"] == "incomplete"  # nothing verifiable is not "safe"
    else:  # the cascade keeps the local verdict and says the judge failed
        assert set(asked["decided_by"]) == {"model"}
        assert asked["justification"].str.contains("Judge").all()
        kept = verdicts[verdicts["judge_calls"] == 0]
        assert set(kept["decided_by"]) <= set(DEFAULT_CHECKS)


def _latest_checks(instance: DagsterInstance, target: str) -> dict[str, dict[str, str]]:
    """The latest result of every check of ``risk_scores`` in ``target``'s partition, as the
    UI's asset page for that partition reads it."""
    keys = [
        AssetCheckKey(AssetKey("risk_scores"), name)
        for name in ("gate_completeness", "gate_hallucinations", "release_decision")
    ]
    records = instance.event_log_storage.get_latest_asset_check_execution_by_key(
        keys, partition_filter=PartitionKeyFilter(key=target)
    )
    found = {}
    for key, record in records.items():
        evaluation = record.evaluation
        assert evaluation is not None and record.partition == target
        meta = {name: str(value.value) for name, value in evaluation.metadata.items()}
        found[key.name] = {"passed": str(evaluation.passed), **meta}
    return found


def test_two_target_partitions_are_compared_side_by_side(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    """Two targets audited in one Dagster instance: each keeps its own history, its own gate
    results (asset checks per partition) and a run tagged with its own decision."""
    answers = tmp_path / "faithful.jsonl"
    replay = Path(__file__).resolve().parents[2] / "data" / "recorded-answers"
    lines = (replay / "sample-replay.jsonl").read_text().splitlines()
    # v2 answers only the three faithful prompts of the five audited: too little to decide.
    dropped = ('"ENC-002"', '"SOC2-003"')
    answers.write_text("\n".join(ln for ln in lines if not any(d in ln for d in dropped)) + "\n")
    config_path = write_audit_config(
        tmp_path,
        sample_index_dir,
        targets={
            "recorded": {"type": "replay", "path": str(replay / "sample-replay.jsonl")},
            "recorded-v2": {"type": "replay", "path": str(answers), "min_coverage": 0.5},
        },
    )
    defs = build_definitions(config_path)
    job = defs.resolve_job_def("full_audit")
    assert set(job.partitions_def.get_partition_keys()) == {"recorded", "recorded-v2"}
    instance = DagsterInstance.ephemeral()
    runs = {}
    for target in ("recorded", "recorded-v2"):
        run = job.execute_in_process(partition_key=target, instance=instance, run_config=RUN_CONFIG)
        assert run.success
        runs[target] = run.run_id
    warehouse = Warehouse(load_config(config_path).duckdb_path)
    summary = warehouse.query(
        "SELECT target, audit_id, prompts, scope, decision, decision_rule FROM v_audit_summary "
        "ORDER BY target"
    )
    assert summary["target"].tolist() == ["recorded", "recorded-v2"]
    assert summary["prompts"].tolist() == [len(IDS), len(IDS)]
    # Audits of part of the suite are kept, but not compared in the trend.
    assert summary["scope"].tolist() == ["partial", "partial"]
    assert warehouse.scalar("SELECT count(*) FROM v_trend") == 0
    materialized = instance.get_materialized_partitions(AssetKey("risk_scores"))
    assert materialized == {"recorded", "recorded-v2"}
    audits = {row.target: row for row in summary.itertuples(index=False)}
    assert audits["recorded"].decision == "block"  # two fabrications
    assert audits["recorded-v2"].decision == "incomplete"  # two of five turns unanswered

    # After the audit of recorded-v2, recorded's checks still show recorded's results.
    first, second = _latest_checks(instance, "recorded"), _latest_checks(instance, "recorded-v2")
    assert first["gate_hallucinations"]["passed"] == "False"
    assert first["gate_completeness"]["passed"] == "True"
    assert first["release_decision"]["decision"] == "block"
    assert second["gate_completeness"]["passed"] == "False"
    assert second["release_decision"]["decision"] == "incomplete"
    for target, checks in (("recorded", first), ("recorded-v2", second)):
        for check in checks.values():
            assert check["target"] == target
            assert check["audit_id"] == audits[target].audit_id

    # Each run carries its audit's decision and rule as tags (the Runs list shows them).
    for target, run_id in runs.items():
        tags = instance.get_run_by_id(run_id).tags
        assert tags[DECISION_TAG] == audits[target].decision
        assert tags[RULE_TAG] == audits[target].decision_rule
