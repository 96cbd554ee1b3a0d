"""Answered turns and the claims cut from them.

A claim is the unit a verifier judges and a report points at, so it carries its exact character
span in the response: analysts highlight it, and span-level benchmarks score it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Claim:
    """One checkable statement of a response; ``response[start:end] == text`` always holds.

    ``kind`` is ``"sentence"`` for a whole sentence (or list item), ``"clause"`` for a piece
    of a longer sentence split at ``;`` or a coordinating conjunction, and ``"fragment"`` for a
    piece of a sentence over the claim length limit (``claims/claim_length.py``).
    """

    claim_id: str
    text: str
    start: int
    end: int
    kind: str


@dataclass(frozen=True)
class AnsweredTurn:
    """A response as the claim, evidence and verification stages see it."""

    prompt_id: str
    turn: int
    response: str | None
    context: tuple[str, ...] | None = None
    error: str | None = None


@dataclass(frozen=True)
class AuditClaim:
    """A claim of one response of one audit; ``claim_id`` is unique within the audit."""

    claim_id: str
    prompt_id: str
    turn: int
    claim: Claim
    extractor: str
