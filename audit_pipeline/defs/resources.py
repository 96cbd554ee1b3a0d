"""Dagster resources: thin, configurable handles on the engine's settings and stores.

Each resource holds only plain settings (so the UI can show and override them) and builds the
engine object on demand. Heavy objects (the embedding model) are cached per process by the
engine itself, not here.
"""

from __future__ import annotations

from dagster import ConfigurableResource, EnvVar, InitResourceContext
from pydantic import PrivateAttr

from audit_pipeline.config import AuditConfig, load_config
from audit_pipeline.defs.cluster_execution import in_cluster_worker
from audit_pipeline.defs.run_storage import RunScopedIOManager
from audit_pipeline.embedding import (
    SENTENCE_TRANSFORMERS,
    Embedder,
    local_embedder,
    retrieval_embedder,
)
from audit_pipeline.embedding_cache import cached
from audit_pipeline.index.collections import CollectionPolicy
from audit_pipeline.index.lance_index import ANN_MIN_ROWS, VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.reliability.breaker_settings import BreakerSettings
from audit_pipeline.reliability.circuit_breaker import CircuitBreaker
from audit_pipeline.verification.configured import needs_judge
from audit_pipeline.warehouse.store import Warehouse


class AuditResource(ConfigurableResource):
    """The run's one configuration object: ``audit.yaml``, loaded and validated once when the
    resource is set up for a run (once per step process with the multiprocess executor) and
    then shared by every asset of that run. Assets read ``config``; none re-reads the file, so
    one run cannot mix two versions of it."""

    config_path: str

    _config: AuditConfig | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: InitResourceContext) -> None:
        self._config = load_config(self.config_path)

    @property
    def config(self) -> AuditConfig:
        if self._config is None:  # used outside a run (a direct call in a test)
            self._config = load_config(self.config_path)
        return self._config


class SecondWriterError(RuntimeError):
    """The warehouse would get a writer besides the process that runs the audit."""


class WarehouseResource(ConfigurableResource):
    """The DuckDB warehouse; migrated to the latest schema before first use. Never opened on
    a cluster worker (see ``cluster_execution``)."""

    duckdb_path: str
    lock_timeout_s: float = 60.0

    _warehouse: Warehouse | None = PrivateAttr(default=None)

    def get(self) -> Warehouse:
        if in_cluster_worker():
            raise SecondWriterError(
                f"a step tried to open the warehouse {self.duckdb_path} on a cluster worker: "
                "only the process that runs the audit writes it (run it with audit-pipeline "
                "run --executor dask|celery, whose workers get only the batch steps)"
            )
        if self._warehouse is None:
            warehouse = Warehouse(self.duckdb_path, self.lock_timeout_s)
            warehouse.migrate()
            self._warehouse = warehouse
        return self._warehouse


class EmbedderResource(ConfigurableResource):
    """The embedding settings of audit.yaml (``embedding:``).

    ``retrieval()`` is the configured model, which the vault index and every search of it use;
    ``get()`` is the offline model of the checks that compare texts (the local verifier, the
    offline critic, pins), which stays the shipped one when retrieval goes to a provider (see
    ``embedding.local_embedder``). ``api_key`` comes from an ``EnvVar``: the UI shows the
    variable's name, never its value.
    """

    provider: str = SENTENCE_TRANSFORMERS
    model: str
    device: str = "cpu"
    batch_size: int = 64
    api_key: str | None = None
    api_base: str | None = None
    timeout_s: float = 30.0
    # storage.embedding_cache: a SQLite file of vectors kept between runs; None: no cache.
    cache_path: str | None = None

    def get(self) -> Embedder:
        return self._cached(local_embedder(self.provider, self.model, self.device, self.batch_size))

    def retrieval(self) -> Embedder:
        return self._cached(
            retrieval_embedder(
                self.provider,
                self.model,
                self.device,
                self.batch_size,
                api_key=self.api_key,
                api_base=self.api_base,
                timeout_s=self.timeout_s,
            )
        )

    def _cached(self, embedder: Embedder) -> Embedder:
        return cached(embedder, self.cache_path)


class VaultIndexResource(ConfigurableResource):
    """The LanceDB vault index and a hybrid retriever over it."""

    lancedb_path: str
    table_name: str = "vault_chunks"
    candidates: int = 20
    rrf_k: int = 60
    breaker_failure_threshold: int = 3
    breaker_reset_timeout_s: float = 30.0
    breaker_success_threshold: int = 2
    fallback_penalty: float = 0.2
    # retrieval.ann_min_rows: above this many chunks the index gets an ANN vector index.
    ann_min_rows: int = ANN_MIN_ROWS
    embedder: EmbedderResource

    def index(self) -> VaultIndex:
        return VaultIndex(
            self.lancedb_path,
            self.embedder.retrieval(),
            self.table_name,
            ann_min_rows=self.ann_min_rows,
        )

    def retriever(self, collections: CollectionPolicy | None = None) -> HybridRetriever:
        """A retriever with its own embedding circuit breaker (BM25-only when embeddings fail)
        and, when given, the per-collection thresholds of ``collections``."""
        breaker = BreakerSettings(
            failure_threshold=self.breaker_failure_threshold,
            reset_timeout_s=self.breaker_reset_timeout_s,
            success_threshold=self.breaker_success_threshold,
            fallback_penalty=self.fallback_penalty,
        )
        return HybridRetriever(
            self.index(),
            candidates=self.candidates,
            rrf_k=self.rrf_k,
            breaker=CircuitBreaker(breaker, "embeddings"),
            fallback_penalty=breaker.fallback_penalty,
            collections=collections,
        )


class JudgeKeyResource(ConfigurableResource):
    """The LLM judge's API key, read from the environment variable named in audit.yaml.

    Only built when the configuration uses an LLM (extractor ``llm``, verifier ``llm`` or
    ``cascade``) and names ``detection.judge.api_key_env``; the value is never logged.
    """

    api_key: str | None = None


def resources_from_config(config_path: str, config: AuditConfig) -> dict[str, object]:
    """The resource set for one configuration file (and the per-run IO manager)."""
    embedding = config.embedding
    embedder = EmbedderResource(
        provider=embedding.provider,
        model=embedding.model,
        device=embedding.device,
        batch_size=embedding.batch_size,
        # Only the variable's name is stored in the resource; Dagster reads it at run time.
        api_key=EnvVar(embedding.api_key_env) if embedding.api_key_env else None,
        api_base=embedding.api_base,
        timeout_s=embedding.timeout_s,
        cache_path=str(config.embedding_cache_path) if config.embedding_cache_path else None,
    )
    breaker = config.reliability.embedding_breaker
    judge_env = config.detection.judge.api_key_env
    judge_key = (
        JudgeKeyResource(api_key=EnvVar(judge_env))
        if judge_env and needs_judge(config.detection)
        else JudgeKeyResource()
    )
    return {
        # Each run keeps its own step outputs: concurrent audits never read each other's.
        "io_manager": RunScopedIOManager(),
        "judge_key": judge_key,
        "settings": AuditResource(config_path=config_path),
        "warehouse": WarehouseResource(
            duckdb_path=str(config.duckdb_path), lock_timeout_s=config.storage.lock_timeout_s
        ),
        "index": VaultIndexResource(
            lancedb_path=str(config.lancedb_path),
            table_name=config.storage.index_table,
            candidates=config.retrieval.candidates,
            rrf_k=config.retrieval.rrf_k,
            breaker_failure_threshold=breaker.failure_threshold,
            breaker_reset_timeout_s=breaker.reset_timeout_s,
            breaker_success_threshold=breaker.success_threshold,
            fallback_penalty=breaker.fallback_penalty,
            ann_min_rows=config.retrieval.ann_min_rows,
            embedder=embedder,
        ),
    }
