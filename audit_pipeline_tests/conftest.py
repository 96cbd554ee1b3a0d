"""Shared fixtures: the real embedding model (loaded once), copies of the sample vault."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
# Tests never record runs in the developer's Dagster instance (`make` exports DAGSTER_HOME).
os.environ.pop("DAGSTER_HOME", None)

from audit_pipeline.embedding import SentenceTransformerEmbedder

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_VAULT = REPO_ROOT / "data" / "sample-vault"


class CountingEmbedder:
    """The real embedder, counting how many texts it was asked to embed."""

    def __init__(self, inner: SentenceTransformerEmbedder):
        self.inner = inner
        self.texts: list[str] = []

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.embed(texts)


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()


@pytest.fixture
def counting_embedder(embedder: SentenceTransformerEmbedder) -> CountingEmbedder:
    return CountingEmbedder(embedder)


@pytest.fixture
def vault_copy(tmp_path: Path) -> Path:
    """A private, writable copy of the sample vault."""
    target = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, target)
    return target


SAMPLE_SUITE = REPO_ROOT / "data" / "prompt-suites" / "security-questionnaire.yaml"
SAMPLE_REPLAY = REPO_ROOT / "data" / "recorded-answers" / "sample-replay.jsonl"
# Recorded answers that are faithful to the vault (the other four hallucinate).
FAITHFUL_IDS = ("SOC2-001", "ENC-003", "GDPR-001", "RET-001", "AC-002", "QST-001", "IR-002")
HALLUCINATED_IDS = ("SOC2-003", "ENC-002", "AC-001", "SUB-001")


@pytest.fixture(scope="session")
def sample_index_dir(
    tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder
) -> Path:
    """The sample vault indexed once per test session; tests copy it instead of re-embedding."""
    from audit_pipeline.index.lance_index import VaultIndex
    from audit_pipeline.vault.chunking import chunk_documents
    from audit_pipeline.vault.documents import scan_vault

    path = tmp_path_factory.mktemp("sample-index") / "vault.lance"
    VaultIndex(path, embedder).sync(chunk_documents(scan_vault(SAMPLE_VAULT).documents))
    return path


def write_audit_config(root: Path, index_dir: Path | None = None, **sections: object) -> Path:
    """An audit.yaml whose every output (warehouse, index, cache, reports) lives under ``root``.

    The vault is a private copy of the sample vault; with ``index_dir`` the prebuilt index is
    copied in, so the audit embeds nothing. ``sections`` replace top-level sections.
    """
    import yaml

    vault = root / "vault"
    if not vault.exists():
        shutil.copytree(SAMPLE_VAULT, vault)
    if index_dir is not None and not (root / "warehouse" / "vault.lance").exists():
        shutil.copytree(index_dir, root / "warehouse" / "vault.lance")
    config: dict[str, object] = {
        "vault": {"path": str(vault)},
        "storage": {
            "duckdb_path": str(root / "warehouse" / "audit.duckdb"),
            "lancedb_path": str(root / "warehouse" / "vault.lance"),
        },
        "suites": {"security-questionnaire": str(SAMPLE_SUITE)},
        # The sample recording answers 12 of the suite's 61 turns.
        "targets": {
            "recorded": {"type": "replay", "path": str(SAMPLE_REPLAY), "min_coverage": 0.15}
        },
        "defaults": {"suite": "security-questionnaire", "target": "recorded"},
        "cache": {"dir": str(root / "cache")},
        "reports": {"dir": str(root / "reports")},
        "observability": {
            "metrics_dir": str(root / "metrics"),
            "log_file": str(root / "logs" / "audit.jsonl"),
        },
        **sections,
    }
    path = root / "audit.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


@pytest.fixture(scope="session")
def audited_config(tmp_path_factory: pytest.TempPathFactory, sample_index_dir: Path) -> Path:
    """A warehouse made by two real audits of the recorded answers (the whole Dagster graph).

    The first audit covers the recorded prompts only, the second the full suite (most prompts
    have no recorded answer there), so the two differ the way consecutive audits do.
    """
    from audit_pipeline.commands.run_audit import RunOptions, run_audit
    from audit_pipeline.config import load_config

    root = tmp_path_factory.mktemp("audited")
    config_path = write_audit_config(root, sample_index_dir)
    config = load_config(config_path)
    recorded = (*FAITHFUL_IDS, *HALLUCINATED_IDS, "ADV-001")
    for options in (RunOptions(target="recorded", ids=recorded), RunOptions(target="recorded")):
        result = run_audit(config_path, config, options)
        assert result.success, result.errors
    return config_path


@pytest.fixture(scope="session")
def audited_warehouse(audited_config: Path) -> Path:
    """The DuckDB file of ``audited_config`` (two finished audits of the recorded answers)."""
    from audit_pipeline.config import load_config

    return load_config(audited_config).duckdb_path
