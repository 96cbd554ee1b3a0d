"""Claim verification: verdict types, the offline local verifier, the LLM judge, the cascade."""

from audit_pipeline.evidence.passages import EvidencePassage
from audit_pipeline.verification.cascade import CascadeVerifier
from audit_pipeline.verification.judge import LLMJudgeVerifier
from audit_pipeline.verification.local import LocalVerifier, ResponseAssessment
from audit_pipeline.verification.scorer import LocalModel, Thresholds
from audit_pipeline.verification.verdict import (
    HALLUCINATION_LABELS,
    Label,
    Verdict,
    Verifier,
)

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
