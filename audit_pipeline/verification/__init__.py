"""Claim verification: verdict types, the offline local verifier, the LLM judge, the cascade."""

from audit_pipeline.evidence.passages import EvidencePassage
from audit_pipeline.verification.cascade import CascadeVerifier
from audit_pipeline.verification.judge import LLMJudgeVerifier
from audit_pipeline.verification.local import LocalVerifier, ResponseAssessment
from audit_pipeline.verification.model import (
    HALLUCINATION_LABELS,
    Label,
    Verdict,
    Verifier,
)
from audit_pipeline.verification.scorer import LocalModel, Thresholds

__all__ = [
    "HALLUCINATION_LABELS",
    "CascadeVerifier",
    "EvidencePassage",
    "LLMJudgeVerifier",
    "Label",
    "LocalModel",
    "LocalVerifier",
    "ResponseAssessment",
    "Thresholds",
    "Verdict",
    "Verifier",
]
