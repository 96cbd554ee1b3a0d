"""The audit configuration (``audit.yaml``) as typed, validated settings.

One file describes a whole audit set-up: where the vault lives, how it is chunked and embedded,
where results are stored, which suites and targets exist. Unknown keys are errors so a typo
(``overlap_wrods``) fails loudly instead of silently falling back to a default. Relative paths
are resolved against the directory of the configuration file, so the CLI, ``make audit`` and
``dagster dev`` agree whatever their working directory.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from audit_pipeline.assertions.assertion_settings import AssertionSettings
from audit_pipeline.embedding import DEFAULT_MODEL, LITELLM, SENTENCE_TRANSFORMERS
from audit_pipeline.evaluation.evaluation_settings import EvaluationSettings
from audit_pipeline.index.collections import DEFAULT as DEFAULT_COLLECTION
from audit_pipeline.index.collections import CollectionPolicy, CollectionSettings
from audit_pipeline.index.lance_index import ANN_MIN_ROWS
from audit_pipeline.llm.judge_settings import JudgeSettings
from audit_pipeline.reliability.breaker_settings import BreakerSettings
from audit_pipeline.scoring.gates import GateSettings
from audit_pipeline.scoring.risk import ScoringSettings
from audit_pipeline.targets.target_config import TargetConfig, VaultBotTargetConfig
from audit_pipeline.terminology.checker import TerminologyChecker
from audit_pipeline.terminology.settings import SkosmosSettings, build_terminology
from audit_pipeline.validation.settings import ValidationSettings
from audit_pipeline.vault.documents import DEFAULT_INCLUDE
from audit_pipeline.verification.detection_settings import DetectionSettings
from audit_pipeline.verification.reader import ReaderSettings
from audit_pipeline.yaml_keys import DuplicateKeyError, load_unique_keys, yaml_error_where

# Suite and target names become Dagster partition keys and file names: keep them plain.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class ConfigError(ValueError):
    """The configuration file is missing, unreadable or invalid; the message says where.

    ``summary`` says what is wrong without quoting the file or naming its absolute path: the
    HTTP API shows it to a caller who named the file and may not read it.
    """

    def __init__(self, message: str, summary: str = "not a valid configuration") -> None:
        super().__init__(message)
        self.summary = summary


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class VaultSettings(_Section):
    path: Path = Path("data/sample-vault")
    # Markdown and text are read as is; PDF, HTML and DOCX through vault.formats' converters.
    include: tuple[str, ...] = DEFAULT_INCLUDE
    max_file_bytes: int = Field(default=2_000_000, gt=0)
    # A symlink that leads out of the vault is skipped (and listed) unless this is true.
    follow_external_symlinks: bool = False
    # Terminology truth source (terminology/): a glossary file (YAML, CSV or SKOS Turtle,
    # relative to audit.yaml) or, instead, a SKOSMOS vocabulary.
    glossary: Path | None = None
    skosmos: SkosmosSettings | None = None

    @model_validator(mode="after")
    def _one_terminology_source(self) -> VaultSettings:
        if self.glossary is not None and self.skosmos is not None:
            raise ValueError("set vault.glossary or vault.skosmos, not both")
        return self


class ChunkingSettings(_Section):
    target_words: int = Field(default=500, gt=0)
    overlap_words: int = Field(default=50, ge=0)

    @model_validator(mode="after")
    def _overlap_below_target(self) -> ChunkingSettings:
        if self.overlap_words >= self.target_words:
            raise ValueError("overlap_words must be smaller than target_words")
        return self


class EmbeddingSettings(_Section):
    """The model of the vault index and retrieval: the shipped offline one, or a provider's
    through litellm (the model a team's bot retrieves with). The key of a provider is read
    from the variable ``api_key_env`` names, never written here."""

    provider: Literal["sentence_transformers", "litellm"] = SENTENCE_TRANSFORMERS
    model: str = DEFAULT_MODEL
    device: str = "cpu"
    batch_size: int = Field(default=64, gt=0)
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    api_base: str | None = None
    timeout_s: float = Field(default=30.0, gt=0)

    @model_validator(mode="after")
    def _provider_fields(self) -> EmbeddingSettings:
        if self.provider == LITELLM and "model" not in self.model_fields_set:
            raise ValueError(
                "embedding.provider litellm needs embedding.model: a litellm embedding model "
                "id such as openai/text-embedding-3-small"
            )
        if self.provider != LITELLM:
            remote = sorted({"api_key_env", "api_base", "timeout_s"} & self.model_fields_set)
            if remote:
                raise ValueError(f"embedding.{remote[0]} is only for provider litellm")
        return self


class StorageSettings(_Section):
    duckdb_path: Path = Path("data/warehouse/audit.duckdb")
    lancedb_path: Path = Path("data/warehouse/vault.lance")
    index_table: str = "vault_chunks"
    # Embeddings of claims, questions and passages kept between runs (embedding_cache.py);
    # null: embed everything anew each run.
    embedding_cache: Path | None = Path("data/warehouse/embeddings.sqlite")
    # How long a write waits for another process's hold on the warehouse before failing.
    lock_timeout_s: float = Field(default=60.0, gt=0)


class RetrievalSettings(_Section):
    top_k: int = Field(default=5, gt=0)
    # Each side of the hybrid search returns this many candidates before fusion.
    candidates: int = Field(default=20, gt=0)
    rrf_k: int = Field(default=60, gt=0)
    # Above this many chunks the vault index gets an approximate (ANN) vector index: an exact
    # scan costs ~200 ms a query at 100k chunks. At or below it, search stays exact.
    ann_min_rows: int = Field(default=ANN_MIN_ROWS, ge=0)


class CacheSettings(_Section):
    """The disk response cache: CI re-runs may answer unchanged prompts from it; the weekly
    audit bypasses it (and refreshes it)."""

    dir: Path = Path("data/cache/responses")
    use_by_default: bool = True


class ReportSettings(_Section):
    dir: Path = Path("data/reports")


class ScheduleSettings(_Section):
    """The weekly full audit of every target (fresh target calls, no response cache)."""

    cron: str = "0 8 * * 1"  # Monday 08:00
    timezone: str = "UTC"
    enabled: bool = True


class SensorSettings(_Section):
    enabled: bool = True
    interval_s: int = Field(default=30, ge=5)


class AutomationSettings(_Section):
    """Schedule and sensors; ``enabled`` sets their default status in the Dagster UI."""

    weekly_audit: ScheduleSettings = ScheduleSettings()
    vault_sensor: SensorSettings = SensorSettings()
    suite_sensor: SensorSettings = SensorSettings()
    # New analysts' marks -> re-score the affected targets' latest audits (no re-verifying).
    marks_sensor: SensorSettings = SensorSettings()


class ReliabilitySettings(_Section):
    embedding_breaker: BreakerSettings = BreakerSettings()


class ObservabilitySettings(_Section):
    metrics_dir: Path = Path("data/metrics")  # <target>.prom, Prometheus text format
    log_file: Path = Path("data/logs/audit.jsonl")  # structured JSON lines (CLI runs)


class ServiceSettings(_Section):
    """The validation service (``serve``, ``mcp``): validations in progress at once, requests
    waiting beyond them (more get 503 with Retry-After), the time one request may take from
    arrival to answer (504 past it) and the largest HTTP body (413 above it)."""

    workers: int = Field(default=4, ge=1, le=64)
    queue: int = Field(default=64, ge=0, le=10_000)
    time_budget_s: float = Field(default=30.0, gt=0)
    max_body_bytes: int = Field(default=8_000_000, gt=0)


class DefaultsSettings(_Section):
    """What a run audits when nothing else is said (``make audit``, ``audit-pipeline run``)."""

    suite: str | None = None
    target: str | None = None


class AuditConfig(_Section):
    """Everything an audit needs to know, loaded from ``audit.yaml``."""

    vault: VaultSettings = VaultSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    storage: StorageSettings = StorageSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    collections: dict[str, CollectionSettings] = Field(default_factory=dict)
    evaluation: EvaluationSettings = EvaluationSettings()
    suites: dict[str, Path] = Field(default_factory=dict)
    targets: dict[str, TargetConfig] = Field(default_factory=dict)
    defaults: DefaultsSettings = DefaultsSettings()
    cache: CacheSettings = CacheSettings()
    detection: DetectionSettings = DetectionSettings()
    assertions: AssertionSettings = AssertionSettings()
    scoring: ScoringSettings = ScoringSettings()
    gates: GateSettings = GateSettings()
    # Self-RAG thresholds, the accept / retry / reject gate, strict_citations (validation/).
    validation: ValidationSettings = ValidationSettings()
    # A litellm model that writes generated suites (generate-suite); None: offline templates.
    suite_generation: JudgeSettings | None = None
    # Known failures accepted until a date (scoring/waivers.py); None: no waivers.
    waivers: Path | None = None
    reports: ReportSettings = ReportSettings()
    automation: AutomationSettings = AutomationSettings()
    reliability: ReliabilitySettings = ReliabilitySettings()
    observability: ObservabilitySettings = ObservabilitySettings()
    service: ServiceSettings = ServiceSettings()
    base_dir: Path = Path(".")

    @model_validator(mode="after")
    def _names_and_defaults(self) -> AuditConfig:
        default = self.collections.get(DEFAULT_COLLECTION)
        if default is not None and default.paths:
            raise ValueError(
                "collections.default holds the thresholds of documents in no other collection: "
                "it takes no paths"
            )
        kinds = (("suite", self.suites), ("target", self.targets), ("collection", self.collections))
        for kind, names in kinds:
            for name in names:
                if not _NAME.match(name):
                    raise ValueError(
                        f"{kind} name {name!r} may hold only letters, digits, '_', '.', '-'"
                    )
        target, suite = self.defaults.target, self.defaults.suite
        if target is not None and target not in self.targets:
            raise ValueError(f"defaults.target: {_unknown('target', target, self.targets)}")
        if suite is not None and suite not in self.suites:
            raise ValueError(f"defaults.suite: {_unknown('suite', suite, self.suites)}")
        return self

    @model_validator(mode="after")
    def _calibrated_model(self) -> AuditConfig:
        """The model ``audit-pipeline calibrate`` accepted, when there is one: written into
        the chain's ``model`` stage, so every surface (CLI, Dagster, the service) builds the
        same chain and its identity names the file (nothing is carried over across it)."""
        path = self.calibrated_model_path
        if not self.detection.calibrated or not path.is_file():
            return self
        return self.model_copy(update={"detection": self.detection.with_model_file(path)})

    @property
    def calibrated_model_path(self) -> Path:
        """Where ``calibrate`` puts the model it accepted: ``verifier/calibrated.json`` in the
        warehouse's folder."""
        return self.resolve(self.storage.duckdb_path).parent / "verifier" / "calibrated.json"

    def target_config(self, name: str | None) -> tuple[str, TargetConfig]:
        """The named target (or the default one), with a clear error for unknown names."""
        name = name or self.defaults.target or (next(iter(self.targets)) if self.targets else None)
        if name is None:
            raise ConfigError("no target is configured: add one under 'targets:' in audit.yaml")
        if name not in self.targets:
            raise ConfigError(_unknown("target", name, self.targets))
        return name, self.targets[name]

    def assertion_rules(self, target: str | None) -> AssertionSettings:
        """The assertion settings for auditing ``target``: the configured ones plus, for the
        built-in bot, its own fallback sentence (its "I don't know" is not a claim and is the
        fallback the behaviour check looks for). The claims and assertion stages both use it."""
        bot = self.targets.get(target) if target is not None else None
        if not isinstance(bot, VaultBotTargetConfig):
            return self.assertions
        sentences = (*self.assertions.fallback_sentences, bot.fallback_sentence)
        # Validated anew (not ``model_copy``) so the compiled patterns include the bot's sentence.
        return AssertionSettings.model_validate(
            {**self.assertions.model_dump(), "fallback_sentences": tuple(dict.fromkeys(sentences))}
        )

    def suite_path(self, name: str | None) -> tuple[str, Path]:
        """The named suite (or the default one) as an absolute path."""
        name = name or self.defaults.suite or (next(iter(self.suites)) if self.suites else None)
        if name is None:
            raise ConfigError("no prompt suite is configured: add one under 'suites:'")
        if name not in self.suites:
            raise ConfigError(_unknown("suite", name, self.suites))
        return name, self.resolve(self.suites[name])

    def golden_suite_paths(self) -> list[tuple[str, Path]]:
        """The suites whose prompts join the golden set: every configured suite when
        ``evaluation.include_suites``, else none."""
        if not self.evaluation.include_suites:
            return []
        return [self.suite_path(name) for name in self.suites]

    def collection_policy(self) -> CollectionPolicy:
        """The per-collection retrieval thresholds the bot and the evidence stage apply."""
        return CollectionPolicy(self.collections)

    def retrieval_fingerprint(self) -> str:
        """A hash of every setting that changes what retrieval returns (the config hash of a
        retrieval evaluation): chunking, embedding, retrieval and collections."""
        payload = self.model_dump(
            mode="json", include={"chunking", "embedding", "retrieval", "collections"}
        )
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def cache_dir(self) -> Path:
        return self.resolve(self.cache.dir)

    @property
    def reports_dir(self) -> Path:
        return self.resolve(self.reports.dir)

    def resolve(self, path: Path) -> Path:
        """An absolute path for a path written in the config (relative to the config file)."""
        return path if path.is_absolute() else (self.base_dir / path).resolve()

    @property
    def waivers_path(self) -> Path | None:
        return None if self.waivers is None else self.resolve(self.waivers)

    @property
    def vault_path(self) -> Path:
        return self.resolve(self.vault.path)

    @property
    def glossary_path(self) -> Path | None:
        return None if self.vault.glossary is None else self.resolve(self.vault.glossary)

    def terminology(self) -> TerminologyChecker | None:
        """The terminology checker for ``vault.glossary`` / ``vault.skosmos`` (None: off)."""
        return build_terminology(self.glossary_path, self.vault.skosmos)

    @property
    def duckdb_path(self) -> Path:
        return self.resolve(self.storage.duckdb_path)

    @property
    def lancedb_path(self) -> Path:
        return self.resolve(self.storage.lancedb_path)

    @property
    def embedding_cache_path(self) -> Path | None:
        cache = self.storage.embedding_cache
        return None if cache is None else self.resolve(cache)

    @property
    def reader_settings(self) -> ReaderSettings | None:
        """``detection.reader`` with its folder resolved against the config file's directory
        (``detection.reader`` itself keeps the path as written, as the fingerprints do)."""
        reader = self.detection.reader
        return (
            None
            if reader is None
            else reader.model_copy(update={"path": self.resolve(reader.path)})
        )

    def fingerprint(self) -> str:
        """A stable hash of the settings, recorded with each audit for reproducibility."""
        payload = self.model_dump(mode="json", exclude={"base_dir"})
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def _unknown(kind: str, name: str, known: Mapping[str, object]) -> str:
    return f"unknown {kind} {name!r}; configured: {', '.join(sorted(known)) or '(none)'}"


def _format_validation_error(path: Path, error: ValidationError) -> str:
    lines = [f"{path}: invalid configuration ({error.error_count()} problem(s))"]
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or "<root>"
        message = item["msg"]
        if item["type"].endswith("_type") and isinstance(item.get("input"), str):
            message += f", not the string {item['input']!r} (write it without quotes)"
        lines.append(f"  - {field}: {message}")
    return "\n".join(lines)


def parse_config(data: dict[str, Any], *, base_dir: Path, source: Path) -> AuditConfig:
    """Validate an already-parsed configuration mapping.

    Validated in pydantic's strict JSON mode: a number written as a string (``candidates:
    "20"``) or a boolean written as ``"yes"`` is an error rather than quietly converted, while
    paths and lists still read as they are written in YAML.
    """
    if not isinstance(data, dict):
        raise ConfigError(
            f"{source}: the top level must be a mapping of sections",
            "the top level is not a mapping of sections",
        )
    try:
        document = json.dumps({**data, "base_dir": str(base_dir)}, default=str)
        return AuditConfig.model_validate_json(document, strict=True)
    except ValidationError as error:
        raise ConfigError(
            _format_validation_error(source, error),
            f"invalid configuration ({error.error_count()} problem(s))",
        ) from None


def load_config(path: str | Path) -> AuditConfig:
    """Read and validate ``audit.yaml``; syntax errors report the line."""
    config_path = Path(path).resolve()
    if not config_path.is_file():
        raise ConfigError(
            f"configuration file not found: {config_path}", "configuration file not found"
        )
    try:
        data = load_unique_keys(config_path.read_text(encoding="utf-8"))
    except DuplicateKeyError as error:
        raise ConfigError(f"{config_path}: {error}", "a key is given twice") from None
    except yaml.YAMLError as error:
        where = yaml_error_where(error)
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigError(
            f"{config_path}: YAML syntax error{where}: {problem}", f"YAML syntax error{where}"
        ) from None
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{config_path}: not valid UTF-8 ({error.reason})", "not valid UTF-8"
        ) from None
    return parse_config(data or {}, base_dir=config_path.parent, source=config_path)
