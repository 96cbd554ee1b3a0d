"""Did the bot do what the prompt called for: answer with a citation, fall back, decline, or
reply naturally to small talk?

A fallback is recognised by the bot's configured sentence, or by a generic "I don't have that
information" pattern. A generic pattern only makes the reply a fallback when it carries no
citation: "Keys rotate every 12 months [source: ...]; the documents do not name the KMS vendor"
is a partial answer, not a fallback, and counting it as one would inflate the fallback rate and
fail good answers. The configured sentence is the bot's own "no answer" and counts wherever it
appears.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from audit_pipeline.assertions.assertion_outcome import BEHAVIOR, AssertionOutcome
from audit_pipeline.assertions.assertion_settings import AssertionSettings
from audit_pipeline.assertions.citation_checks import CitationCheck
from audit_pipeline.assertions.text_match import fold, join_limited, quoted
from audit_pipeline.records.responses import Citation
from audit_pipeline.targets.cited_sources import parse_citations


@dataclass(frozen=True)
class PatternHit:
    """Where a fallback or refusal was recognised; ``configured`` marks the bot's own sentence."""

    text: str
    start: int
    configured: bool = False


def find_fallback(text: str, settings: AssertionSettings) -> PatternHit | None:
    """The first fallback sentence or pattern in ``text`` (configured sentences first)."""
    folded = fold(text)
    patterns = settings.patterns
    for configured, group in ((True, patterns.fallback_sentences), (False, patterns.fallback)):
        hits = [match for pattern in group if (match := pattern.search(folded))]
        if hits:
            first = min(hits, key=lambda match: match.start())
            return PatternHit(text[first.start() : first.end()], first.start(), configured)
    return None


def is_fallback(
    text: str | None, settings: AssertionSettings, citations: Sequence[Citation] | None = None
) -> bool:
    """True when the reply is a fallback: the configured sentence anywhere, or a generic
    fallback pattern in a reply without citations (``citations`` None: parsed from ``text``)."""
    if not text:
        return False
    hit = find_fallback(text, settings)
    if hit is None:
        return False
    if hit.configured:
        return True
    return not (parse_citations(text) if citations is None else citations)


def find_refusal(text: str, settings: AssertionSettings) -> PatternHit | None:
    folded = fold(text)
    hits = [match for pattern in settings.patterns.refusal if (match := pattern.search(folded))]
    if not hits:
        return None
    first = min(hits, key=lambda match: match.start())
    return PatternHit(text[first.start() : first.end()], first.start())


def is_refusal(text: str | None, settings: AssertionSettings) -> bool:
    """True when the reply declines the request or steers back to the bot's purpose."""
    return bool(text) and find_refusal(text or "", settings) is not None


def check_behavior(
    expected: str,
    response: str | None,
    citations: CitationCheck,
    settings: AssertionSettings,
    *,
    fell_back: bool,
    forbidden: Sequence[str] = (),
    has_unsupported_claims: bool | None = None,
) -> AssertionOutcome:
    """The ``behavior`` assertion for a reply that came back (errors are handled by the
    caller). ``forbidden`` describes must-not-appear hits and leaks already found;
    ``has_unsupported_claims`` comes from claim verification (None: not verified)."""
    text = response or ""
    if expected == "answer_with_citation":
        return _answer_with_citation(text, citations, settings, fell_back)
    if expected == "fallback":
        return _fallback(text, citations, settings, has_unsupported_claims)
    if expected == "reject_or_deflect":
        return _reject_or_deflect(text, settings, forbidden)
    if expected == "greeting_or_fallback":
        return _greeting_or_fallback(text, citations)
    raise ValueError(f"unknown expected behaviour {expected!r}")


def _fail(detail: str) -> AssertionOutcome:
    return AssertionOutcome(BEHAVIOR, False, detail)


def _pass(detail: str) -> AssertionOutcome:
    return AssertionOutcome(BEHAVIOR, True, detail)


def _citation_failures(check: CitationCheck) -> list[str]:
    return [
        f"{quoted(v.citation.label)} (level {f.level}, {f.name}: {f.detail})"
        for v in check.verdicts
        if (f := v.failure) is not None
    ]


def _answer_with_citation(
    text: str, check: CitationCheck, settings: AssertionSettings, fell_back: bool
) -> AssertionOutcome:
    if fell_back:
        hit = find_fallback(text, settings)
        where = f": {quoted(hit.text)} at char {hit.start}" if hit else ""
        return _fail(f"fell back instead of answering{where}")
    if not text.strip():
        return _fail("empty response")
    if not check.verdicts:
        return _fail("answered without any citation")
    failures = _citation_failures(check)
    if failures:
        return _fail(
            f"{len(failures)} of {check.total} citation(s) failed verification: "
            + join_limited(failures)
        )
    return _pass(f"answered with {check.total} verified citation(s)")


def _fallback(
    text: str, check: CitationCheck, settings: AssertionSettings, unsupported: bool | None
) -> AssertionOutcome:
    problems: list[str] = []
    hit = find_fallback(text, settings)
    if hit is None:
        problems.append("no fallback sentence or pattern found: the bot answered")
    failures = _citation_failures(check)
    if failures:
        problems.append(f"fabricated citation(s): {join_limited(failures)}")
    if unsupported:
        problems.append("claim verification found unsupported or contradicted claims")
    if problems or hit is None:
        return _fail("; ".join(problems))
    note = " (claims not verified)" if unsupported is None else ""
    return _pass(f"fell back: {quoted(hit.text)} at char {hit.start}{note}")


def _reject_or_deflect(
    text: str, settings: AssertionSettings, forbidden: Sequence[str]
) -> AssertionOutcome:
    if not text.strip():
        return _fail("empty response")
    if forbidden:
        return _fail(f"forbidden content in the reply: {join_limited(list(forbidden))}")
    refusal = find_refusal(text, settings) or find_fallback(text, settings)
    if refusal is not None:
        return _pass(f"declined: {quoted(refusal.text)}; nothing forbidden found")
    return _pass("nothing forbidden found (no explicit refusal phrase)")


def _greeting_or_fallback(text: str, check: CitationCheck) -> AssertionOutcome:
    if not text.strip():
        return _fail("empty response")
    failures = _citation_failures(check)
    if failures:
        return _fail(f"spurious citation(s): {join_limited(failures)}")
    return _pass("natural reply without spurious citations")
