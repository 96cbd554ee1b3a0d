"""Builders for suites and response records in the assertion tests."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from audit_pipeline.records.responses import Citation, ResponseRecord
from audit_pipeline.suites import PromptSuite, parse_suite
from audit_pipeline.targets.cited_sources import parse_citations

NOW = datetime(2026, 1, 5, tzinfo=UTC)


def suite_of(*entries: dict[str, Any]) -> PromptSuite:
    """A suite from entries in the file format, validated like a file would be."""
    return parse_suite(json.dumps(entries), source="<test>", fmt="json", default_name="test")


def record(
    prompt_id: str,
    turn: int,
    response: str | None,
    *,
    error: str | None = None,
    citations: tuple[Citation, ...] | None = None,
) -> ResponseRecord:
    """A response record as the runner makes it: citations parsed from the text by default."""
    if citations is None:
        citations = parse_citations(response) if response else ()
    return ResponseRecord(
        audit_id="audit-1",
        prompt_id=prompt_id,
        turn=turn,
        target="test",
        model=None,
        prompt="",
        response=response,
        citations=citations,
        context=None,
        latency_ms=None,
        prompt_tokens=None,
        completion_tokens=None,
        cost=None,
        error=error,
        attempts=1,
        from_cache=False,
        started_at=NOW,
        finished_at=NOW,
        prompt_hash="h",
    )
