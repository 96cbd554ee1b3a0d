"""All golden queries of a configuration: the golden set file plus the suites' prompts."""

from __future__ import annotations

from collections.abc import Collection

from audit_pipeline.config import AuditConfig
from audit_pipeline.evaluation.golden import (
    GoldenQuery,
    GoldenSetError,
    check_against_vault,
    load_golden,
    merge,
    suite_queries,
)
from audit_pipeline.suites.errors import SuiteFileError, SuiteValidationError
from audit_pipeline.suites.loader import load_suite


def golden_queries(config: AuditConfig, doc_ids: Collection[str]) -> list[GoldenQuery]:
    """The golden set, then (``evaluation.include_suites``) suite prompts not already in it,
    checked against the vault's documents and collections."""
    queries = load_golden(config.resolve(config.evaluation.golden_set))
    if config.evaluation.include_suites:
        suites = []
        for name in config.suites:
            _, path = config.suite_path(name)
            try:
                suites.append((name, load_suite(path)))
            except (SuiteFileError, SuiteValidationError) as error:
                first = str(error).splitlines()[-1].strip(" -")
                raise GoldenSetError(f"suite {name!r} (golden queries): {first}") from None
        queries = merge(queries, suite_queries(suites))
    policy = config.collection_policy()
    known = set(policy.configured) | set(policy.names(doc_ids))
    check_against_vault(queries, set(doc_ids), known)
    return queries
