"""Evidence for claims from a given context (a RAG log's chunks, a benchmark's source text)."""

from audit_pipeline.evidence.context import LOGGED_CONTEXT, ContextEvidence, context_evidence
from audit_pipeline.evidence.passages import ContextPassage, record_passages, text_passages

__all__ = [
    "LOGGED_CONTEXT",
    "ContextEvidence",
    "ContextPassage",
    "context_evidence",
    "record_passages",
    "text_passages",
]
