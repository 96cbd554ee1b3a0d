"""Rule assertions of an audit: behaviour, required signals, forbidden strings, citation
verification, leaks and false-memory agreement (the audit summary built from them is counted
in ``scoring/audit_summary.py``).

Plain engine code (no Dagster): ``evaluate_audit`` turns a suite, its responses and the vault
into ``assertion_results`` rows.
"""

from audit_pipeline.assertions.agreement import check_no_agreement, find_agreement
from audit_pipeline.assertions.assertion_outcome import ASSERTION_NAMES, AssertionOutcome
from audit_pipeline.assertions.assertion_runner import (
    TurnEvaluation,
    evaluate_audit,
    evaluate_response,
    evaluate_turn,
)
from audit_pipeline.assertions.assertion_settings import AssertionSettings, LeakPatterns
from audit_pipeline.assertions.behavior import (
    check_behavior,
    find_fallback,
    find_refusal,
    is_fallback,
    is_refusal,
)
from audit_pipeline.assertions.citation_checks import (
    CitationCheck,
    CitationVerdict,
    LevelResult,
    check_citation_source,
    verify_citation,
    verify_citations,
)
from audit_pipeline.assertions.content import check_must_not_appear, check_required_signals
from audit_pipeline.assertions.leaks import LeakHit, check_no_leak, find_leaks
from audit_pipeline.assertions.vault_catalog import VaultCatalog
from audit_pipeline.records.assertions import AssertionRow

__all__ = [
    "ASSERTION_NAMES",
    "AssertionOutcome",
    "AssertionRow",
    "AssertionSettings",
    "CitationCheck",
    "CitationVerdict",
    "LeakHit",
    "LeakPatterns",
    "LevelResult",
    "TurnEvaluation",
    "VaultCatalog",
    "check_behavior",
    "check_citation_source",
    "check_must_not_appear",
    "check_no_agreement",
    "check_no_leak",
    "check_required_signals",
    "evaluate_audit",
    "evaluate_response",
    "evaluate_turn",
    "find_agreement",
    "find_fallback",
    "find_leaks",
    "find_refusal",
    "is_fallback",
    "is_refusal",
    "verify_citation",
    "verify_citations",
]
