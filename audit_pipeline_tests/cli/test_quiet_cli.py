"""Run outside the Makefile, the CLI prints the audit and nothing of Dagster's or the models'.

``make`` exports ``DAGSTER_HOME`` (with a ``dagster.yaml`` that turns telemetry off) and quiet
settings for litellm and the Hugging Face libraries; a CI job calling ``audit-pipeline``
directly has none of them. Without ``DAGSTER_HOME`` the CLI keeps its own Dagster instance next
to the warehouse, so Dagster prints no telemetry banner and no missing-configuration warning,
and model-loading progress bars appear only with ``-v``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from audit_pipeline_tests.cli.helpers import cli_process
from audit_pipeline_tests.helpers import write_audit_config

pytestmark = pytest.mark.slow

# Everything the Makefile exports, and the switches a developer's shell may carry.
UNSET = (
    "DAGSTER_HOME",
    "DAGSTER_DISABLE_TELEMETRY",
    "LITELLM_LOCAL_MODEL_COST_MAP",
    "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE",
    "HF_HUB_DISABLE_PROGRESS_BARS",
    "TQDM_DISABLE",  # the CLI sets it without -v; main() called in-process leaves it set
    "TRANSFORMERS_VERBOSITY",
)
NOISE = (
    "Telemetry:",
    "docs.dagster.io/about/telemetry",
    "No dagster instance configuration file",
    "Loading weights",
)


def test_a_plain_run_prints_no_dagster_banner_warning_or_progress_bar(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    # A cache of its own: from a warm one the run might load no model, and print no bar to hide.
    config = write_audit_config(tmp_path, sample_index_dir, private_embeddings=True)
    run = ("run", "--no-progress", "--id", "SOC2-001", "--report-only")
    result = cli_process(config, *run, unset=UNSET)
    assert result.returncode == 0, result.stderr
    assert "DECISION" in result.stdout
    output = result.stdout + result.stderr
    assert [noise for noise in NOISE if noise in output] == []
    assert result.stderr.strip() == ""

    settings = tmp_path / "warehouse" / "dagster_home" / "dagster.yaml"
    assert yaml.safe_load(settings.read_text())["telemetry"] == {"enabled": False}
    assert (tmp_path / "warehouse" / "dagster_home" / "storage").is_dir()  # runs are kept

    # -v shows the model loading again. A fresh set-up, so that the run has to load the model:
    # a second run of the same one may carry its verdicts over and load nothing.
    fresh = write_audit_config(tmp_path / "verbose", sample_index_dir, private_embeddings=True)
    verbose = cli_process(fresh, *run, "-v", unset=UNSET)
    assert verbose.returncode == 0, verbose.stderr
    assert "Loading weights" in verbose.stderr
    assert "Telemetry:" not in verbose.stdout + verbose.stderr
