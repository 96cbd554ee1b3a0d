"""Claim verification: the verifier chain of declared stages (``stages/``), the LLM judge, the
readers, and the analyses the stages share (features, specifics, polarity)."""

from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import HALLUCINATION_LABELS, Label, Verdict
from audit_pipeline.verification.batch import Answer
from audit_pipeline.verification.judge import LLMJudgeVerifier
from audit_pipeline.verification.scorer import LocalModel, Thresholds
from audit_pipeline.verification.stages.chain import VerifierChain
from audit_pipeline.verification.verdict import AnswerVerdicts, Verifier, verify_answer

__all__ = [
    "HALLUCINATION_LABELS",
    "Answer",
    "AnswerVerdicts",
    "EvidencePassage",
    "LLMJudgeVerifier",
    "Label",
    "LocalModel",
    "Thresholds",
    "Verdict",
    "Verifier",
    "VerifierChain",
    "verify_answer",
]
