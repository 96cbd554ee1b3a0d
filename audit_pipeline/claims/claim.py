"""Claim ids and the extractor protocol every extractor implements.

The claim record itself lives in ``records.claims``: a claim carries its exact character span
in the response, and ``make_claim`` builds it so text and span can never disagree.
"""

from __future__ import annotations

import hashlib
from typing import Protocol, runtime_checkable

from audit_pipeline.records.claims import Claim


def claim_id_for(text: str, start: int, end: int) -> str:
    """Content hash of the claim text and its span.

    It does not know which response the claim came from: callers that store claims from many
    responses prefix it with the response key, which keeps this module free of storage concerns.
    """
    digest = hashlib.sha256(f"{start}:{end}:{text}".encode()).hexdigest()
    return digest[:16]


def make_claim(response: str, start: int, end: int, kind: str) -> Claim:
    """Build a claim from a span of ``response`` so text and span can never disagree."""
    text = response[start:end]
    return Claim(
        claim_id=claim_id_for(text, start, end), text=text, start=start, end=end, kind=kind
    )


@runtime_checkable
class ClaimExtractor(Protocol):
    """Splits a response into claims with exact character spans."""

    name: str
    # Raised whenever a code change alters what the extractor returns, so stored claims
    # extracted by an older version are not kept (``extraction_identity``).
    version: str

    def extract(self, response: str) -> list[Claim]: ...
