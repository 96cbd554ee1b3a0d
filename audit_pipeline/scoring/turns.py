"""Per-turn facts for scoring, gathered from the responses, verdicts and assertion rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from audit_pipeline.assertions.assertion_outcome import CITATIONS
from audit_pipeline.assertions.assertion_settings import AssertionSettings
from audit_pipeline.assertions.behavior import is_fallback, is_refusal
from audit_pipeline.records.assertions import AssertionRow
from audit_pipeline.records.responses import ResponseRecord
from audit_pipeline.scoring.audit_summary import flagged_turns
from audit_pipeline.scoring.risk import TurnOutcome
from audit_pipeline.suites.prompt_suite import PromptSuite


def turn_outcomes(
    suite: PromptSuite,
    records: Sequence[ResponseRecord],
    assertion_rows: Sequence[AssertionRow],
    labels: Mapping[tuple[str, int], Sequence[str]],
    settings: AssertionSettings,
) -> list[TurnOutcome]:
    """One outcome per answered turn of the suite (failed calls have nothing to score).
    ``hallucinated`` is the summary's own definition (``flagged_turns``), so the stored
    hallucination rates are the hallucination count over answered turns."""
    category = {prompt.id: prompt.category for prompt in suite.prompts}
    flagged = flagged_turns(assertion_rows, ())
    citation_errors = {
        row.key: row.citation_errors for row in assertion_rows if row.assertion == CITATIONS
    }
    outcomes = []
    for record in records:
        if record.prompt_id not in category or record.error or record.response is None:
            continue
        key = (record.prompt_id, record.turn)
        cited = len(record.citations)
        outcomes.append(
            TurnOutcome(
                prompt_id=record.prompt_id,
                turn=record.turn,
                category=category[record.prompt_id],
                labels=tuple(labels.get(key, ())),
                citations=cited,
                citations_verified=max(cited - citation_errors.get(key, 0), 0),
                is_fallback=is_fallback(record.response, settings, record.citations),
                is_refusal=is_refusal(record.response, settings),
                forbidden=key in flagged,
            )
        )
    return outcomes
