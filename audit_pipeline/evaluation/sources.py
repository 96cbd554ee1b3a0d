"""All golden queries of a configuration: the golden set file plus the suites' prompts.

Takes the paths and the collection policy rather than the whole ``AuditConfig``: the
configuration imports the evaluation settings, so evaluation must not import the configuration
back (imports flow one way; see ``[tool.importlinter]`` in ``pyproject.toml``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from audit_pipeline.evaluation.golden import (
    GoldenQuery,
    GoldenSetError,
    check_against_vault,
    load_golden,
    merge,
    suite_queries,
)
from audit_pipeline.index.collections import CollectionPolicy
from audit_pipeline.suites.errors import SuiteFileError, SuiteValidationError
from audit_pipeline.suites.loader import load_suite


def golden_queries(
    golden_set: Path,
    suite_paths: Sequence[tuple[str, Path]],
    policy: CollectionPolicy,
    doc_ids: Collection[str],
) -> list[GoldenQuery]:
    """The golden set, then the prompts of ``suite_paths`` not already in it (empty unless
    ``evaluation.include_suites``; see ``AuditConfig.golden_suite_paths``), checked against the
    vault's documents and collections."""
    queries = load_golden(golden_set)
    if suite_paths:
        suites = []
        for name, path in suite_paths:
            try:
                suites.append((name, load_suite(path)))
            except (SuiteFileError, SuiteValidationError) as error:
                first = str(error).splitlines()[-1].strip(" -")
                raise GoldenSetError(f"suite {name!r} (golden queries): {first}") from None
        queries = merge(queries, suite_queries(suites))
    known = set(policy.configured) | set(policy.names(doc_ids))
    check_against_vault(queries, set(doc_ids), known)
    return queries
