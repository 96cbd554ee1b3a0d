"""``audit-pipeline retrieval-eval`` on the sample vault: figures, the regression gate, history,
and the ``retrieval_eval`` asset check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from dagster import materialize

from audit_pipeline.cli import main
from audit_pipeline.config import load_config
from audit_pipeline.defs.evaluation_assets import REGRESSION_CHECK, retrieval_eval
from audit_pipeline.defs.resources import resources_from_config
from audit_pipeline.defs.vault_index_assets import VAULT_ASSETS
from audit_pipeline.reports.data import load_report_data
from audit_pipeline.reports.markdown_report import render_markdown
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.helpers import REPO_ROOT, write_audit_config

pytestmark = pytest.mark.slow


GOLDEN = REPO_ROOT / "data" / "evaluation" / "golden_queries.jsonl"
SAMPLE_COLLECTIONS = yaml.safe_load((REPO_ROOT / "audit.yaml").read_text())["collections"]


def _config(root: Path, index: Path, **sections: Any) -> Path:
    """The sample set-up: the collections of audit.yaml, the shipped golden set only."""
    return write_audit_config(
        root,
        index,
        collections=sections.pop("collections", SAMPLE_COLLECTIONS),
        evaluation={"golden_set": str(GOLDEN), "include_suites": False},
        **sections,
    )


def _rewrite(config: Path, **sections: Any) -> None:
    data = yaml.safe_load(config.read_text())
    data.update(sections)
    config.write_text(yaml.safe_dump(data, sort_keys=False))


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory, sample_index_dir: Path) -> Path:
    """A configuration with one evaluation run and its --json baseline next to it."""
    root = tmp_path_factory.mktemp("retrieval-eval")
    config = _config(root, sample_index_dir)
    assert main(["--config", str(config), "retrieval-eval", "--json", str(root / "base.json")]) == 0
    return config


def test_json_has_the_documented_shape_with_per_collection_figures(evaluated: Path) -> None:
    report = json.loads((evaluated.parent / "base.json").read_text())

    assert report["queries"] == len(GOLDEN.read_text().splitlines())
    assert len(report["config_hash"]) == len(report["golden_hash"]) == 16
    assert list(report["per_collection"]) == ["policies", "standards", "assurance"]
    for figures in [report["overall"], *report["per_collection"].values()]:
        for name in ("precision", "recall", "mrr", "abstention_rate"):
            assert 0.0 <= figures[name] <= 1.0
        assert figures["p95_latency_ms"] > 0
    assert sum(f["queries"] for f in report["per_collection"].values()) == report["queries"]
    # The sample vault retrieves well: most expected documents are found, first.
    assert report["overall"]["recall"] > 0.8 and report["overall"]["mrr"] > 0.8


def test_the_same_configuration_passes_the_gate(
    evaluated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code = main(
        [
            "--config",
            str(evaluated),
            "retrieval-eval",
            "--baseline",
            str(evaluated.parent / "base.json"),
        ]
    )

    out = capsys.readouterr().out
    assert code == 0, out
    assert "overall" in out and "policies" in out and "GATE PASSED" in out


@pytest.mark.parametrize(
    "change",
    [
        {"retrieval": {"top_k": 1}},
        {"collections": {**SAMPLE_COLLECTIONS, "default": {"min_score": 0.6}}},
    ],
    ids=["top_k 1", "raised min_score"],
)
def test_a_worse_configuration_fails_the_gate(
    evaluated: Path,
    tmp_path: Path,
    sample_index_dir: Path,
    change: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
) -> None:
    worse = _config(tmp_path, sample_index_dir)
    _rewrite(worse, **change)
    baseline = evaluated.parent / "base.json"
    capsys.readouterr()

    code = main(
        [
            "--config",
            str(worse),
            "retrieval-eval",
            "--baseline",
            str(baseline),
            "--json",
            str(tmp_path / "now.json"),
        ]
    )

    out = capsys.readouterr().out
    assert code == 1, out
    assert "GATE FAILED: precision dropped" in out
    written = json.loads((tmp_path / "now.json").read_text())
    assert written["baseline"]["passed"] is False
    assert written["config_hash"] != json.loads(baseline.read_text())["config_hash"]
    # The limit is configurable: with precision ungated the same evaluation passes.
    assert (
        main(
            [
                "--config",
                str(worse),
                "retrieval-eval",
                "--baseline",
                str(baseline),
                "--max-drop",
                "precision=off",
            ]
        )
        == 0
    )


def test_evaluations_are_kept_in_duckdb_and_shown_by_v_trend(evaluated: Path) -> None:
    warehouse = Warehouse(load_config(evaluated).duckdb_path)
    evals = warehouse.query(
        "SELECT eval_id, scope, collection, precision_at_k FROM retrieval_evals ORDER BY eval_id"
    )
    assert set(evals["scope"]) == {"overall", "collection"}
    overall = evals[evals["scope"] == "overall"]
    assert len(overall) >= 1
    queries = warehouse.scalar(
        "SELECT count(*) FROM retrieval_eval_queries WHERE eval_id = ?", [overall.iloc[-1].eval_id]
    )
    assert queries == len(GOLDEN.read_text().splitlines())
    # A full audit of the evaluated vault state: v_trend shows that state's latest evaluation
    # beside it; an audit of a vault state never evaluated shows none (not another vault's).
    vault, latest = warehouse.query(
        "SELECT arg_max(vault_hash, evaluated_at) AS v, arg_max(precision_at_k, evaluated_at) AS p"
        " FROM retrieval_evals WHERE scope = 'overall'"
    ).iloc[0]
    for audit, target, state in (("a1", "recorded", vault), ("a2", "other", "another-vault")):
        warehouse.execute(
            "INSERT INTO audits (audit_id, started_at, status, target, decision, risk, scope,"
            " vault_hash) VALUES (?, now(), 'finished', ?, 'deploy', 0.0, 'full', ?)",
            [audit, target, state],
        )
    trend = warehouse.query("SELECT target, retrieval_precision FROM v_trend ORDER BY target")
    assert trend["target"].tolist() == ["other", "recorded"]
    assert trend["retrieval_precision"].isna().tolist() == [True, False]
    assert trend["retrieval_precision"].iloc[1] == pytest.approx(latest)
    # The audit's report shows the latest evaluation of the vault state it ran against.
    markdown = render_markdown(load_report_data(warehouse, "a1"))
    assert f"precision {latest:.3f}" in markdown.split("Retrieval (golden set)")[1]


def test_the_asset_check_compares_with_the_previous_evaluation(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    config_path = _config(tmp_path, sample_index_dir)

    def evaluate() -> Any:
        result = materialize(
            [*VAULT_ASSETS, retrieval_eval],
            resources=resources_from_config(str(config_path), load_config(config_path)),
        )
        (check,) = [
            e for e in result.get_asset_check_evaluations() if e.check_name == REGRESSION_CHECK
        ]
        return check

    first = evaluate()
    assert first.passed and "first evaluation" in first.metadata["baseline"].value
    _rewrite(config_path, retrieval={"top_k": 1})
    second = evaluate()
    assert not second.passed
    assert second.metadata["precision_delta"].value < -0.05


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--baseline", "missing.json"], "--baseline missing.json: not found"),
        (["--max-drop", "speed=0.1"], "--max-drop 'speed=0.1': write FIGURE=FRACTION"),
    ],
)
def test_bad_arguments_exit_2_with_one_error_line(
    evaluated: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["--config", str(evaluated), "retrieval-eval", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and err.count("\n") == 1


def test_a_broken_golden_set_exits_2_naming_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"query": "q", "expected_doc_ids": "encryption-standard.md"}\n')
    config = write_audit_config(
        tmp_path, evaluation={"golden_set": str(golden), "include_suites": False}
    )

    assert main(["--config", str(config), "retrieval-eval"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {golden}:1: field 'expected_doc_ids': a non-empty list of strings\n"
    assert not (tmp_path / "warehouse" / "audit.duckdb").exists()  # nothing was written
