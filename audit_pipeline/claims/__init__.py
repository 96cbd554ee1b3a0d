"""Claim extraction: turn a response into checkable statements with exact character spans."""

from audit_pipeline.claims.extractor import SentenceClaimExtractor
from audit_pipeline.claims.llm import ExtractionStatus, LLMClaimExtractor
from audit_pipeline.claims.model import Claim, ClaimExtractor, claim_id_for, make_claim

__all__ = [
    "Claim",
    "ClaimExtractor",
    "ExtractionStatus",
    "LLMClaimExtractor",
    "SentenceClaimExtractor",
    "claim_id_for",
    "make_claim",
]
