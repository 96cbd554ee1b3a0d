"""Build the configured claim extractor and verifier, and name what their results depend on.

The API key is passed in by the caller (the Dagster resource reads it with ``EnvVar``); it goes
straight into the litellm call parameters and is never logged or stored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from audit_pipeline.claims.claim import ClaimExtractor
from audit_pipeline.claims.claim_length import MAX_CLAIM_CHARS
from audit_pipeline.claims.extractor import SentenceClaimExtractor
from audit_pipeline.claims.llm_extractor import LLMClaimExtractor
from audit_pipeline.embedding import Embedder
from audit_pipeline.llm.judge_settings import JudgeSettings
from audit_pipeline.verification.cascade import CascadeVerifier
from audit_pipeline.verification.checks.chain import CheckChain
from audit_pipeline.verification.detection_settings import DetectionSettings
from audit_pipeline.verification.judge import LLMJudgeVerifier
from audit_pipeline.verification.local import LocalVerifier
from audit_pipeline.verification.reader import ReaderSettings, build_reader
from audit_pipeline.verification.reader_verdicts import ReaderVerifier
from audit_pipeline.verification.verdict import Verifier


def _litellm_params(judge: JudgeSettings, api_key: str | None) -> dict[str, Any]:
    params: dict[str, Any] = {**judge.params, "timeout": judge.timeout_s}
    if judge.api_base:
        params["api_base"] = judge.api_base
    if api_key:
        params["api_key"] = api_key
    return params


def needs_judge(settings: DetectionSettings) -> bool:
    """Whether an LLM is called (and its key must be set): the reader, when configured, takes
    the cascade's second stage."""
    second_stage = settings.verifier == "llm" or (
        settings.verifier == "cascade" and settings.reader is None
    )
    return settings.extractor == "llm" or second_stage


def build_extractor(
    settings: DetectionSettings, fallback_sentences: Sequence[str], api_key: str | None = None
) -> ClaimExtractor:
    if settings.extractor == "llm":
        return LLMClaimExtractor(
            settings.judge.model,
            fallback_sentences=fallback_sentences,
            **_litellm_params(settings.judge, api_key),
        )
    return SentenceClaimExtractor(fallback_sentences)


def build_verifier(
    settings: DetectionSettings,
    embedder: Embedder,
    api_key: str | None = None,
    reader: ReaderSettings | None = None,
) -> Verifier:
    """The configured verifier. ``reader`` is ``detection.reader`` with its path resolved
    (``AuditConfig.reader_settings``): with one, the local verifier's uncertain claims go to
    it (a cascade whose second stage is the reader)."""
    folder_reader = build_reader(reader)
    if settings.verifier == "llm" and folder_reader is None:
        return LLMJudgeVerifier(settings.judge.model, **_litellm_params(settings.judge, api_key))
    local = LocalVerifier(embedder, checks=CheckChain(settings.checks))
    if folder_reader is not None:
        return CascadeVerifier(local, ReaderVerifier(folder_reader), band=settings.cascade_band)
    if settings.verifier == "local":
        return local
    judge = LLMJudgeVerifier(settings.judge.model, **_litellm_params(settings.judge, api_key))
    return CascadeVerifier(local, judge, band=settings.cascade_band)


def verifier_identity(verifier: Verifier, settings: DetectionSettings) -> str:
    """What a verdict depends on besides its claim and evidence: the verifier's name and
    version and every detection setting (thresholds, judge model, cascade band). A change to
    any of them means no earlier verdict is carried over (``verification/reuse.py``). The
    number of batches the work is split into changes none of them."""
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
