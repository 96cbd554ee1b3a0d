"""Build the configured claim extractor and verifier, and name what their results depend on.

The API key is passed in by the caller (the Dagster resource reads it with ``EnvVar``); it goes
straight into the litellm call parameters and is never logged or stored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from audit_pipeline.claims.claim import ClaimExtractor
from audit_pipeline.claims.claim_length import MAX_CLAIM_CHARS
from audit_pipeline.claims.extractor import SentenceClaimExtractor
from audit_pipeline.claims.llm_extractor import LLMClaimExtractor
from audit_pipeline.embedding import Embedder
from audit_pipeline.verification.detection_settings import DetectionSettings
from audit_pipeline.verification.judge import litellm_params
from audit_pipeline.verification.reader import ReaderSettings, build_reader
from audit_pipeline.verification.scorer import LocalModel
from audit_pipeline.verification.stages.base import Stage, StageResources
from audit_pipeline.verification.stages.chain import VerifierChain
from audit_pipeline.verification.stages.model import LearnedModel, ModelParams
from audit_pipeline.verification.stages.registry import build_stage
from audit_pipeline.verification.verdict import Verifier


def needs_judge(settings: DetectionSettings) -> bool:
    """Whether an LLM is called (and its key must be set): the LLM extractor, or a judge stage
    in the chain."""
    return settings.extractor == "llm" or any(s.name == "judge" for s in settings.chain())


def build_extractor(
    settings: DetectionSettings, fallback_sentences: Sequence[str], api_key: str | None = None
) -> ClaimExtractor:
    if settings.extractor == "llm":
        return LLMClaimExtractor(
            settings.judge.model,
            fallback_sentences=fallback_sentences,
            **litellm_params(settings.judge, api_key),
        )
    return SentenceClaimExtractor(fallback_sentences)


def build_verifier(
    settings: DetectionSettings,
    embedder: Embedder | None,
    api_key: str | None = None,
    reader: ReaderSettings | None = None,
) -> VerifierChain:
    """The configured verifier chain (``DetectionSettings.chain``). ``reader`` is
    ``detection.reader`` with its path resolved (``AuditConfig.reader_settings``); the reader
    folder is checked now, so a wrong setting fails before an audit starts."""
    resources = StageResources(judge=settings.judge, api_key=api_key, reader=reader)
    stages = [build_stage(spec.name, spec.params, resources) for spec in settings.chain()]
    if reader is not None:
        build_reader(reader)
    return VerifierChain(stages, embedder, name=settings.chain_name())


def local_chain(
    embedder: Embedder | None, model: LocalModel | None = None, answer_level: bool = True
) -> VerifierChain:
    """The default local chain (``verifier: local``), its learned model replaced by ``model``
    when given (a benchmark's fold refit) and reading claims one by one without
    ``answer_level`` (the pair-set benchmarks)."""
    stages: list[Stage] = []
    for spec in DetectionSettings().chain():
        if spec.name == "model":
            stages.append(LearnedModel(ModelParams(answer_level=answer_level), model=model))
        else:
            stages.append(build_stage(spec.name, spec.params))
    return VerifierChain(stages, embedder)


def verifier_identity(verifier: Verifier, settings: DetectionSettings) -> str:
    """What a verdict depends on besides its claim and evidence: the verifier's name and
    version (for a chain, a digest of its stages' names, versions, parameters, model files and
    code) and every detection setting (judge model, evidence top-k). A change to any of them
    means no earlier verdict is carried over (``verification/reuse.py``). The number of
    batches the work is split into changes none of them."""
    judged = settings.model_dump_json(exclude={"batches"})
    digest = hashlib.sha256(judged.encode("utf-8")).hexdigest()[:16]
    return f"{verifier.name}:{verifier.version}:{digest}"


def extraction_identity(
    extractor: ClaimExtractor, settings: DetectionSettings, fallback_sentences: Sequence[str]
) -> str:
    """What an audit's claims depend on besides its answers: the extractor's name and version,
    the claims-per-answer cap, the claim length limit, the fallback sentences it skips and,
    for the LLM extractor, the judge settings. Claims stored with the same identity are kept
    by a re-verification."""
    inputs = {
        "max_claims_per_answer": settings.max_claims_per_answer,
        "max_claim_chars": MAX_CLAIM_CHARS,  # over-long sentences are cut (claims/claim_length)
        "fallback_sentences": list(fallback_sentences),
        "judge": settings.judge.model_dump(mode="json") if settings.extractor == "llm" else None,
    }
    digest = hashlib.sha256(json.dumps(inputs, sort_keys=True).encode("utf-8")).hexdigest()[:16]
    return f"{extractor.name}:{extractor.version}:{digest}"
