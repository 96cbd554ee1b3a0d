"""Shared test helpers: sample-data paths, the recorded answers' ids, a counting embedder and
an audit.yaml writer. Imported by tests; ``conftest.py`` holds fixtures only (pytest loads it
implicitly, and a module imported both ways is easy to get wrong).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np

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


SAMPLE_SUITE = REPO_ROOT / "data" / "prompt-suites" / "security-questionnaire.yaml"
SAMPLE_REPLAY = REPO_ROOT / "data" / "recorded-answers" / "sample-replay.jsonl"
# Recorded answers that are faithful to the vault (the other four hallucinate).
FAITHFUL_IDS = ("SOC2-001", "ENC-003", "GDPR-001", "RET-001", "AC-002", "QST-001", "IR-002")
HALLUCINATED_IDS = ("SOC2-003", "ENC-002", "AC-001", "SUB-001")

# The embedding cache every test workspace shares (set by conftest for the whole session, every
# xdist worker and child process included). Workspaces are fresh, but the texts they embed (the
# sample vault's passages and sentences, the recorded answers' claims) are the same in every
# test: with a cache of their own each audit embedded them anew, half of its time on 2 cores.
SHARED_EMBEDDING_CACHE_ENV = "AUDIT_TEST_EMBEDDING_CACHE"


def shared_storage(root: Path) -> dict[str, str]:
    """The ``storage`` section of a workspace under ``root``: its own warehouse and index, the
    session's shared embedding cache (the per-workspace default when no session set one)."""
    storage = {
        "duckdb_path": str(root / "warehouse" / "audit.duckdb"),
        "lancedb_path": str(root / "warehouse" / "vault.lance"),
    }
    shared = os.environ.get(SHARED_EMBEDDING_CACHE_ENV)
    if shared:
        storage["embedding_cache"] = shared
    return storage


def write_audit_config(
    root: Path,
    index_dir: Path | None = None,
    *,
    private_embeddings: bool = False,
    **sections: object,
) -> Path:
    """An audit.yaml whose every output (warehouse, index, cache, reports) lives under ``root``.

    The vault is a private copy of the sample vault; with ``index_dir`` the prebuilt index is
    copied in, so the audit embeds nothing. ``sections`` replace top-level sections.
    Embeddings come from the session's shared cache (``shared_storage``) unless
    ``private_embeddings``: a test that needs the model itself to run (a progress bar, a
    failing embedder) or that checks what the workspace's own files hold keeps its own cache.
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
        }
        if private_embeddings
        else shared_storage(root),
        "suites": {"security-questionnaire": str(SAMPLE_SUITE)},
        # The sample recording answers 12 of the suite's 65 turns.
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
