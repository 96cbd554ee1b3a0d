"""Claim verification: verdict types, the offline local verifier, the LLM judge, the cascade."""

from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import HALLUCINATION_LABELS, Label, Verdict
from audit_pipeline.verification.cascade import CascadeVerifier
from audit_pipeline.verification.judge import LLMJudgeVerifier
from audit_pipeline.verification.local import LocalVerifier, ResponseAssessment
from audit_pipeline.verification.scorer import LocalModel, Thresholds
from audit_pipeline.verification.verdict import Verifier

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
