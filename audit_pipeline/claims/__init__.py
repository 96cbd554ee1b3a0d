"""Claim extraction: turn a response into checkable statements with exact character spans."""

from audit_pipeline.claims.claim import ClaimExtractor, claim_id_for, make_claim
from audit_pipeline.claims.extractor import SentenceClaimExtractor
from audit_pipeline.claims.llm_extractor import ExtractionStatus, LLMClaimExtractor
from audit_pipeline.records.claims import Claim

__all__ = [
    "Claim",
    "ClaimExtractor",
    "ExtractionStatus",
    "LLMClaimExtractor",
    "SentenceClaimExtractor",
    "claim_id_for",
    "make_claim",
]
