"""Shared fixtures: the real embedding model (loaded once), copies of the sample vault, audited
warehouses. Fixtures only: helpers that tests import live in ``helpers.py``."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
# Tests never record runs in the developer's Dagster instance (`make` exports DAGSTER_HOME).
os.environ.pop("DAGSTER_HOME", None)

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline_tests.embeddings_server import EmbeddingsServer, start_embeddings_server
from audit_pipeline_tests.helpers import (
    FAITHFUL_IDS,
    HALLUCINATED_IDS,
    SAMPLE_VAULT,
    SHARED_EMBEDDING_CACHE_ENV,
    CountingEmbedder,
    write_audit_config,
)

# Property tests: no per-example deadline (2 shared cores make timings meaningless) and the
# same examples on every run, so a failure in CI is the failure a developer reproduces.
settings.register_profile("audit", deadline=None, derandomize=True)
settings.load_profile("audit")


# Session fixtures made by real audits (the whole Dagster graph, tens of seconds): a test that
# reads one is slow however quick its own assertions are, so `make test-fast` skips it.
AUDITED_FIXTURES = frozenset({"audited_config", "audited_warehouse", "audited_policy_workspace"})


# Child processes, clusters and several whole audits: each of these files takes minutes.
LONGEST_FILES = (
    "defs/test_cluster_executors.py",
    "cli/test_concurrent_audits.py",
    "defs/test_scale_out.py",
    "cli/test_quiet_cli.py",
    "targets/test_vault_bot.py",
    "validation/test_batch_audit.py",
    "cli/test_exit_codes.py",
    "defs/test_audit_assets.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if AUDITED_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    # The longest files first (minutes each, measured on 2 cores), then the other files with
    # slow tests, each file's tests in their order: pytest-xdist (``--dist loadfile``) hands
    # files out in this order, so the workers end on quick files together instead of one
    # waiting minutes for the other's last whole-audit file.
    slow_files = {
        item.path
        for item in items
        if item.get_closest_marker("slow") or item.get_closest_marker("model")
    }
    here = Path(__file__).parent

    def rank(item: pytest.Item) -> tuple[int, bool]:
        name = item.path.relative_to(here).as_posix() if item.path.is_relative_to(here) else ""
        first = LONGEST_FILES.index(name) if name in LONGEST_FILES else len(LONGEST_FILES)
        return first, item.path not in slow_files

    items.sort(key=rank)


def session_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder one test session shares: under pytest-xdist the parent of every worker's own
    base folder (``pytest-N``, the workers' ``popen-gwK`` are in it), else the base folder."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """The folder ``name`` of the session, ``build`` run on it by the first worker that asks;
    the others wait on a lock for it (a session fixture is otherwise made once per xdist worker,
    and the audited workspace is a minute of whole audits each time).

    A build that fails leaves no mark, so the next worker tries again and fails the same way.
    """
    root = session_root(tmp_path_factory)
    folder, done = root / name, root / f"{name}.built"
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session", autouse=True)
def shared_embedding_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One embedding cache for every workspace of the session (``helpers.shared_storage``), in
    every worker and child process: the cache takes concurrent writers (SQLite WAL, a busy
    timeout), as it does for an audit's step processes."""
    path = session_root(tmp_path_factory) / "embeddings.sqlite"
    previous = os.environ.get(SHARED_EMBEDDING_CACHE_ENV)
    os.environ[SHARED_EMBEDDING_CACHE_ENV] = str(path)
    yield path
    if previous is None:
        os.environ.pop(SHARED_EMBEDDING_CACHE_ENV, None)
    else:
        os.environ[SHARED_EMBEDDING_CACHE_ENV] = previous


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()


@pytest.fixture
def embeddings_server() -> Iterator[EmbeddingsServer]:
    """An OpenAI-compatible embeddings server on 127.0.0.1 (48-d vectors), for the provider
    embedding paths."""
    started = start_embeddings_server(dimension=48)
    yield started
    started.server.stop()


@pytest.fixture
def counting_embedder(embedder: SentenceTransformerEmbedder) -> CountingEmbedder:
    return CountingEmbedder(embedder)


@pytest.fixture
def vault_copy(tmp_path: Path) -> Path:
    """A private, writable copy of the sample vault."""
    target = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, target)
    return target


@pytest.fixture(scope="session")
def sample_index_dir(
    tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder
) -> Path:
    """The sample vault indexed once per test session (for every worker); tests copy it instead
    of re-embedding, or only read it."""
    from audit_pipeline.index.lance_index import VaultIndex
    from audit_pipeline.vault.chunking import chunk_documents
    from audit_pipeline.vault.documents import scan_vault

    def build(folder: Path) -> None:
        chunks = chunk_documents(scan_vault(SAMPLE_VAULT).documents)
        VaultIndex(folder / "vault.lance", embedder).sync(chunks)

    return built_once(tmp_path_factory, "sample-index", build) / "vault.lance"


@pytest.fixture(scope="session")
def audited_config(tmp_path_factory: pytest.TempPathFactory, sample_index_dir: Path) -> Path:
    """A warehouse made by three real audits of the recorded answers (the whole Dagster graph).

    The first audit covers the recorded prompts only (a partial audit), the second and third
    the full suite (most prompts have no recorded answer there), so the audits differ the way
    consecutive audits do, and two full ones can be compared (trends compare full audits only).
    """
    from audit_pipeline.commands.run_audit import RunOptions, run_audit
    from audit_pipeline.config import load_config

    def build(root: Path) -> None:
        config_path = write_audit_config(root, sample_index_dir)
        config = load_config(config_path)
        recorded = (*FAITHFUL_IDS, *HALLUCINATED_IDS, "ADV-001")
        full = RunOptions(target="recorded")
        for options in (RunOptions(target="recorded", ids=recorded), full, full):
            result = run_audit(config_path, config, options)
            assert result.success, result.errors

    # Audited once per session; each worker reads a copy of its own, so that one worker's tests
    # never hold the DuckDB file or the Dagster instance while another's open them.
    built = built_once(tmp_path_factory, "audited", build)
    root = tmp_path_factory.mktemp("audited")
    shutil.copytree(built, root, dirs_exist_ok=True)
    config_path = root / "audit.yaml"
    config_path.write_text(config_path.read_text().replace(str(built), str(root)))
    return config_path


@pytest.fixture(scope="session")
def audited_warehouse(audited_config: Path) -> Path:
    """The DuckDB file of ``audited_config`` (three finished audits of the recorded answers)."""
    from audit_pipeline.config import load_config

    return load_config(audited_config).duckdb_path


@pytest.fixture(scope="session")
def audited_policy_workspace(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, str, dict[str, str]]:
    """The small policy workspace (``policy_workspace.py``) audited once per session: its
    audit.yaml, the audit id and the claim ids by prompt id. Tests that mark its claims
    count marks relative to what they find."""
    from audit_pipeline.commands.run_audit import RunOptions, run_audit
    from audit_pipeline.config import load_config
    from audit_pipeline.warehouse.store import Warehouse
    from audit_pipeline_tests.policy_workspace import write_policy_workspace

    config_path = write_policy_workspace(tmp_path_factory.mktemp("policy-audited"))
    config = load_config(config_path)
    result = run_audit(config_path, config, RunOptions(target="recorded"))
    assert result.success, result.errors
    audit_id = result.outcome.audit_id  # type: ignore[union-attr]
    claims = Warehouse(config.duckdb_path).query(
        "SELECT prompt_id, claim_id FROM claims WHERE audit_id = ?", [audit_id]
    )
    return config_path, audit_id, dict(zip(claims.prompt_id, claims.claim_id, strict=True))
