"""``audit-pipeline diff``: the risk change between two audits and whether it is significant."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit_pipeline.scoring.risk_comparison import bootstrap_risk_change
from audit_pipeline_tests.helpers import FAITHFUL_IDS, SAMPLE_REPLAY, write_audit_config

# A false statement about the vault (keys rotate every 12 months, data is hosted in Germany or
# the US): whatever the question, its claims are contradicted.
FABRICATION = (
    "Encryption keys are rotated every 3 months. All customer data is hosted in Ireland, and "
    "backups are kept for ten years."
)


def test_one_changed_prompt_among_many_is_not_significant() -> None:
    before = {f"P{i}": 0.0 for i in range(20)}
    change = bootstrap_risk_change(before, {**before, "P7": 1.0})

    assert change.change == pytest.approx(0.05) and change.changed == 1
    assert change.low == 0.0 and not change.significant_increase


def test_many_changed_prompts_are_significant_in_either_direction() -> None:
    before = {f"P{i}": 0.1 * (i % 3) for i in range(20)}
    worse = {p: r + (0.6 if i % 4 else 0.0) for i, (p, r) in enumerate(before.items())}

    up = bootstrap_risk_change(before, worse)
    assert up.significant_increase and up.low > 0.3
    down = bootstrap_risk_change(worse, before)
    assert down.significant_decrease and not down.significant_increase
    # Only prompts answered in both audits are compared.
    assert bootstrap_risk_change(before, {"P1": 1.0, "new": 1.0}).prompts == 1


def test_the_interval_is_reproducible_and_narrows_with_confidence() -> None:
    before = {f"P{i}": 0.0 for i in range(10)}
    after = {f"P{i}": 0.2 * (i % 2) for i in range(10)}
    wide = bootstrap_risk_change(before, after, confidence=0.99)
    narrow = bootstrap_risk_change(before, after, confidence=0.8)

    assert bootstrap_risk_change(before, after) == bootstrap_risk_change(before, after)
    assert wide.low <= narrow.low <= narrow.high <= wide.high


def _recording(path: Path, fabricated: set[str]) -> Path:
    rows = [json.loads(line) for line in SAMPLE_REPLAY.read_text().splitlines() if line.strip()]
    kept = []
    for row in rows:
        if row["prompt_id"] in FAITHFUL_IDS:
            if row["prompt_id"] in fabricated:
                row = {
                    "prompt_id": row["prompt_id"],
                    "prompt": row["prompt"],
                    "response": FABRICATION,
                }
            kept.append(json.dumps(row))
    path.write_text("\n".join(kept))
    return path


@pytest.mark.slow
def test_diff_fails_on_regression_only_when_many_prompts_got_worse(
    tmp_path: Path, sample_index_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from audit_pipeline.cli import main
    from audit_pipeline.commands.run_audit import RunOptions, run_audit
    from audit_pipeline.config import load_config

    targets = {
        name: {
            "type": "replay",
            "path": str(_recording(tmp_path / f"{name}.jsonl", fabricated)),
            "min_coverage": 0.1,
        }
        for name, fabricated in (
            ("base", set()),
            ("one", {FAITHFUL_IDS[0]}),
            ("many", set(FAITHFUL_IDS)),
        )
    }
    config_path = write_audit_config(
        tmp_path,
        sample_index_dir,
        targets=targets,
        defaults={"suite": "security-questionnaire", "target": "base"},
    )
    config = load_config(config_path)
    audit = {}
    for name in targets:
        result = run_audit(config_path, config, RunOptions(target=name, ids=FAITHFUL_IDS))
        assert result.success, result.errors
        audit[name] = result.outcome.audit_id  # type: ignore[union-attr]
    capsys.readouterr()

    def diff(after: str) -> tuple[int, str, dict]:  # type: ignore[type-arg]
        out = tmp_path / f"diff-{after}.json"
        code = main(
            [
                "--config",
                str(config_path),
                "diff",
                audit["base"],
                audit[after],
                "--fail-on",
                "regression",
                "--json",
                str(out),
            ]
        )
        return code, capsys.readouterr().out, json.loads(out.read_text())["risk_change"]

    code, printed, change = diff("one")
    assert code == 0, printed
    assert change["changed"] == 1 and change["change"] > 0 and not change["significant_increase"]
    assert "not significant" in printed

    code, printed, change = diff("many")
    assert code == 1, printed
    assert change["changed"] > len(FAITHFUL_IDS) // 2 and change["ci"][0] > 0
    assert "REGRESSION" in printed
