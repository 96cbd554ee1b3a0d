"""Run every rule assertion of a suite over an audit's responses.

One function per reply (``evaluate_turn`` / ``evaluate_response``) and one per audit
(``evaluate_audit``), both pure: the caller reads the vault and the responses, and writes the
rows. Which assertions a turn gets depends on what its suite entry asks for:

- ``behavior`` when the turn has an ``expected_behavior``;
- ``required_signals`` / ``must_not_appear`` / ``must_not_assert`` when those lists are
  non-empty (``must_not_assert`` reads the turn's claims and verdicts: ``denial.py``);
- ``citations`` when the reply cites anything, or when an answer with citation is expected;
- ``citation_source`` when ``required_citation_source`` or ``citation_must_contain`` is set;
- ``no_leak`` always; ``no_agreement`` on turns marked ``no_agreement``;
- ``pinned_response`` on turns with a pin (``pinning.py``; ``semantic`` pins need
  ``similarity``);
- ``secret_echo`` (failed) when the answer repeated a secret the audit sent, which the runner
  cut out of it (``targets/secrets.py``).

A turn without a reply (target error, or no record at all) gets one failed ``behavior`` row
carrying the error, and nothing else: checking "4 hours" against no text would only add noise
rows that say the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from audit_pipeline.assertions.agreement import check_no_agreement
from audit_pipeline.assertions.assertion_outcome import (
    BEHAVIOR,
    CITATIONS,
    SECRET_ECHO,
    AssertionOutcome,
)
from audit_pipeline.assertions.assertion_settings import AssertionSettings
from audit_pipeline.assertions.behavior import check_behavior, is_fallback
from audit_pipeline.assertions.citation_checks import CitationCheck, verify_citations
from audit_pipeline.assertions.content import (
    check_required_signals,
    must_not_appear_hits,
    must_not_appear_outcome,
)
from audit_pipeline.assertions.denial import check_must_not_assert
from audit_pipeline.assertions.leaks import find_leaks, no_leak_outcome
from audit_pipeline.assertions.pinning import Similarity, check_pinned
from audit_pipeline.assertions.text_match import quoted
from audit_pipeline.assertions.vault_catalog import VaultCatalog
from audit_pipeline.records.assertions import AssertionRow, CheckedClaim
from audit_pipeline.records.responses import Citation, ResponseRecord
from audit_pipeline.suites.prompt_suite import PromptSuite, SuiteTurn
from audit_pipeline.targets.cited_sources import parse_citations
from audit_pipeline.targets.secrets import redactions_in

TurnKey = tuple[str, int]


@dataclass(frozen=True)
class TurnEvaluation:
    """All outcomes of one turn plus what a report shows beside them: per-citation levels and
    whether the reply was a fallback."""

    outcomes: tuple[AssertionOutcome, ...]
    citations: CitationCheck
    fell_back: bool
    expected_behavior: str | None

    @property
    def passed(self) -> bool:
        return all(outcome.passed for outcome in self.outcomes)


def _no_reply(turn: SuiteTurn, detail: str) -> TurnEvaluation:
    outcome = AssertionOutcome(BEHAVIOR, False, detail)
    return TurnEvaluation((outcome,), CitationCheck(()), False, turn.expected_behavior)


def evaluate_turn(
    turn: SuiteTurn,
    category: str,
    response: str | None,
    error: str | None,
    citations: Sequence[Citation] | None,
    vault: VaultCatalog,
    settings: AssertionSettings,
    has_unsupported_claims: bool | None = None,
    *,
    history: Sequence[str] = (),
    claims: Sequence[CheckedClaim] | None = None,
    similarity: Similarity | None = None,
) -> TurnEvaluation:
    """Every assertion of one turn.

    ``citations`` None: parsed from ``response``. ``history`` holds the user's earlier messages
    in the conversation: a name the user typed may be echoed without counting as a leak.
    ``claims`` are the reply's checked claims with their verdicts (None: not verified), which
    ``must_not_assert`` needs to tell an assertion from a supported denial.
    ``category`` is accepted so every caller passes the same turn context; no rule depends on
    it today.
    """
    if error is not None:
        return _no_reply(turn, f"target error: {error}")
    if response is None:
        return _no_reply(turn, "no response")
    cited = parse_citations(response) if citations is None else tuple(citations)
    check = verify_citations(
        cited,
        vault,
        settings,
        required_source=turn.required_citation_source,
        must_contain=turn.citation_must_contain,
    )
    expected = turn.expected_behavior
    fell_back = is_fallback(response, settings, cited)
    forbidden_hits = must_not_appear_hits(response, turn.must_not_appear)
    leak_hits = find_leaks(response, settings, (*history, turn.prompt))
    forbidden = [f"{quoted(text)} at char {start}" for text, start in forbidden_hits] + [
        hit.describe() for hit in leak_hits
    ]

    outcomes: list[AssertionOutcome] = []
    if expected is not None:
        outcomes.append(
            check_behavior(
                expected,
                response,
                check,
                settings,
                fell_back=fell_back,
                forbidden=forbidden,
                has_unsupported_claims=has_unsupported_claims,
            )
        )
    if turn.required_signals:
        outcomes.append(check_required_signals(response, turn.signal_groups))
    if turn.must_not_appear:
        outcomes.append(must_not_appear_outcome(forbidden_hits, len(turn.must_not_appear)))
    if turn.must_not_assert:
        outcomes.append(check_must_not_assert(response, turn.must_not_assert, claims))
    if check.verdicts or expected == "answer_with_citation":
        outcomes.append(check.outcome(require_one=expected == "answer_with_citation"))
    if check.source is not None:
        outcomes.append(check.source)
    outcomes.append(no_leak_outcome(leak_hits))
    if turn.no_agreement:
        outcomes.append(check_no_agreement(response, settings))
    if turn.pinned_response is not None:
        outcomes.append(
            check_pinned(
                response,
                turn.pinned_response,
                turn.pinned_tolerance,
                turn.pinned_min_similarity,
                similarity,
            )
        )
    echoed = redactions_in(response)
    if echoed:
        outcomes.append(
            AssertionOutcome(
                SECRET_ECHO,
                False,
                f"the answer repeated a secret the audit sent (an API key or header value) "
                f"{echoed} time(s); redacted before it was stored",
            )
        )
    return TurnEvaluation(tuple(outcomes), check, fell_back, expected)


def evaluate_response(
    turn: SuiteTurn,
    category: str,
    response: str | None,
    error: str | None,
    citations: Sequence[Citation] | None,
    vault: VaultCatalog,
    settings: AssertionSettings,
    has_unsupported_claims: bool | None = None,
    *,
    history: Sequence[str] = (),
) -> list[AssertionOutcome]:
    """The outcomes of ``evaluate_turn``, for callers that only need pass/fail and details."""
    evaluation = evaluate_turn(
        turn,
        category,
        response,
        error,
        citations,
        vault,
        settings,
        has_unsupported_claims,
        history=history,
    )
    return list(evaluation.outcomes)


def evaluate_audit(
    suite: PromptSuite,
    records: Sequence[ResponseRecord],
    vault_catalog: VaultCatalog,
    settings: AssertionSettings,
    unsupported_by_turn: Mapping[TurnKey, bool] | None = None,
    claims_by_turn: Mapping[TurnKey, Sequence[CheckedClaim]] | None = None,
    similarity: Similarity | None = None,
) -> list[AssertionRow]:
    """Rows for every turn of every suite prompt, in suite order.

    A turn with no record fails (``no response recorded``) instead of vanishing, so a broken
    target cannot shrink the denominator. Records of prompts not in ``suite`` are ignored (the
    suite may have been filtered); two records for one turn are a caller bug and raise.
    ``unsupported_by_turn`` maps (prompt id, turn) to "claim verification found an unsupported
    or contradicted claim"; a missing key means "not verified". ``claims_by_turn`` holds each
    reply's checked claims (``checked_claims_by_turn``); a reply missing from it has none.
    """
    unsupported = unsupported_by_turn or {}
    by_turn: dict[TurnKey, ResponseRecord] = {}
    for record in records:
        key = (record.prompt_id, record.turn)
        if key in by_turn:
            raise ValueError(f"two response records for prompt {key[0]!r} turn {key[1]}")
        by_turn[key] = record
    rows: list[AssertionRow] = []
    for prompt in suite.prompts:
        history: list[str] = []
        for index, turn in enumerate(prompt.turns):
            reply = by_turn.get((prompt.id, index))
            if reply is None:
                evaluation = _no_reply(turn, "no response recorded for this turn")
            else:
                evaluation = evaluate_turn(
                    turn,
                    prompt.category,
                    reply.response,
                    reply.error,
                    reply.citations,
                    vault_catalog,
                    settings,
                    unsupported.get((prompt.id, index)),
                    history=tuple(history),
                    claims=(claims_by_turn or {}).get((prompt.id, index), ()),
                    similarity=similarity,
                )
            history.append(turn.prompt)
            rows.extend(_rows(prompt.id, index, prompt.category, evaluation))
    return rows


def _rows(
    prompt_id: str, turn: int, category: str, evaluation: TurnEvaluation
) -> list[AssertionRow]:
    rows = []
    for outcome in evaluation.outcomes:
        is_behavior = outcome.name == BEHAVIOR
        rows.append(
            AssertionRow(
                prompt_id=prompt_id,
                turn=turn,
                category=category,
                assertion=outcome.name,
                passed=outcome.passed,
                detail=outcome.detail,
                expected_behavior=evaluation.expected_behavior if is_behavior else None,
                fell_back=evaluation.fell_back if is_behavior else False,
                citation_errors=evaluation.citations.errors if outcome.name == CITATIONS else 0,
            )
        )
    return rows
