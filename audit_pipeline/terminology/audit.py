"""The terminology check inside a batch audit: per response, the question is the suite prompt.

The evidence stage swaps a definitional claim's passages for the definition (so the evidence
table shows what was cited); the verdict stage re-plans (a local glossary lookup is a dict
access; a remote one is cached) and applies misses, timeouts and mismatches to the verdicts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from audit_pipeline.records.claims import AuditClaim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.terminology.checker import TermCheck, TerminologyChecker, definition_passages
from audit_pipeline.terminology.lookup import TermLookup

if TYPE_CHECKING:
    import pandas as pd


def plan_audit(
    checker: TerminologyChecker,
    claims: Sequence[AuditClaim],
    prompts: Mapping[tuple[str, int], str],
) -> dict[str, TermCheck]:
    """Term checks by claim id; a claim's index in a check is its position in ``claims``."""
    by_turn: dict[tuple[str, int], list[int]] = defaultdict(list)
    for index, claim in enumerate(claims):
        by_turn[(claim.prompt_id, claim.turn)].append(index)
    checks: dict[str, TermCheck] = {}
    for key, indices in by_turn.items():
        for check in checker.plan(prompts.get(key), [claims[i].claim for i in indices]):
            index = indices[check.claim_index]
            checks[claims[index].claim_id] = TermCheck(index, check.lookup)
    return checks


def audit_evidence(
    evidence: dict[str, list[EvidencePassage]], checks: Mapping[str, TermCheck]
) -> dict[str, list[EvidencePassage]]:
    result = dict(evidence)
    for claim_id, check in checks.items():
        if check.lookup.concepts:
            result[claim_id] = definition_passages(check.lookup.concepts)
    return result


def glossary_lookups(checks: Mapping[str, TermCheck]) -> dict[int, TermLookup]:
    """The lookups of an audit's term checks by the claim's position, as the verifier chain's
    glossary stages read them (``Verifier.settle``)."""
    return {check.claim_index: check.lookup for check in checks.values()}


def prompts_of(responses: pd.DataFrame) -> dict[tuple[str, int], str]:
    """(prompt id, turn) -> prompt, from the responses table as a DataFrame."""
    rows = responses.to_dict("records")
    return {(r["prompt_id"], int(r["turn"])): r["prompt"] for r in rows}
