"""``must_not_assert``: a forbidden string fails only where the answer asserts it.

The literal ``must_not_appear`` check of seed 000 fails an answer that names the forbidden thing
only to rule it out: "DOT 4 only; DOT 5 silicone fluid must never be used" trips
``must_not_appear: ["DOT 5"]`` although it is exactly the right answer. ``must_not_assert`` looks
at the claim the string sits in:

- the string's clause (the claim cut at ``;``, ``:`` and contrastive conjunctions, never at
  commas, which separate list items: "DES, 3DES and RC4 are prohibited") carries a negation or
  a prohibition ("not", "never", "must not", "prohibited", "disabled", ...), **and**
- the claim verifier found that claim **supported** by the vault,

then the hit is reported as a note and the assertion passes. Every other hit fails: an
affirmative mention, a denial the vault does not back (a bot that says "we never use AWS KMS"
when the vault says nothing about it still invented something), or a hit no checked claim
covers. The literal check stays the default; a suite asks for this one per turn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from audit_pipeline.assertions.assertion_outcome import MUST_NOT_ASSERT, AssertionOutcome
from audit_pipeline.assertions.defaults import NEGATION
from audit_pipeline.assertions.text_match import find_phrase, fold, join_limited, quoted
from audit_pipeline.records.assertions import CheckedClaim

SUPPORTED = "supported"
_PROHIBITION = (
    r"\b(?:prohibit\w*|forbid\w*|banned|bans?|disallow\w*|disabled|deprecated|excluded|"
    r"avoid\w*|refuse\w*|instead\s+of|rather\s+than|must\s+not|may\s+not|shall\s+not)\b"
)
_CUE = re.compile(rf"{NEGATION}|{_PROHIBITION}", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[;:]|\s[-\u2013\u2014]\s|\b(?:but|whereas|while|however|although)\b")


def clause_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Start and end of the clause of ``text`` holding ``text[start:end]``."""
    left = max((m.end() for m in _CLAUSE_BREAK.finditer(text, 0, start)), default=0)
    following = _CLAUSE_BREAK.search(text, end)
    return left, following.start() if following else len(text)


def is_denied(text: str, start: int, end: int) -> bool:
    """True when the clause around ``text[start:end]`` negates or prohibits, the string aside
    (a forbidden "no-reply" must not deny itself)."""
    left, right = clause_bounds(text, start, end)
    rest = text[left:start] + " " * (end - start) + text[end:right]
    return _CUE.search(fold(rest)) is not None


def check_must_not_assert(
    response: str, forbidden: Sequence[str], claims: Sequence[CheckedClaim] | None
) -> AssertionOutcome:
    failures: list[str] = []
    notes: list[str] = []
    for phrase in forbidden:
        for match in find_phrase(response, phrase):
            where = f"{quoted(phrase)} at char {match.start()}"
            claim = next(
                (c for c in claims or () if c.start <= match.start() and match.end() <= c.end),
                None,
            )
            if claim is None:
                failures.append(f"{where} (in no checked claim)")
                continue
            denied = is_denied(claim.text, match.start() - claim.start, match.end() - claim.start)
            if not denied:
                failures.append(f"{where} asserted in {quoted(claim.text)}")
            elif claim.label != SUPPORTED:
                verdict = claim.label or "not verified"
                failures.append(
                    f"{where} denied in {quoted(claim.text)}, but the vault does not back "
                    f"the denial ({verdict})"
                )
            else:
                notes.append(f"{where} only in a denial the vault supports: {quoted(claim.text)}")
    if failures:
        return AssertionOutcome(MUST_NOT_ASSERT, False, join_limited(failures + notes))
    if notes:
        return AssertionOutcome(MUST_NOT_ASSERT, True, "note: " + join_limited(notes))
    return AssertionOutcome(
        MUST_NOT_ASSERT, True, f"none of {len(forbidden)} forbidden string(s) asserted"
    )
