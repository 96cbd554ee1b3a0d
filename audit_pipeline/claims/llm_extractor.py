"""Claim extraction by an LLM through litellm, with a validated schema and a safe fallback.

An LLM splits compound sentences into atomic claims better than rules do, but its reply is
untrusted: it is parsed as JSON, checked against a schema, repaired at most once, and mapped
back to exact spans. When all that fails the offline sentence extractor is used instead, and
the failure is recorded in :attr:`LLMClaimExtractor.last_status` so the audit can report it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from audit_pipeline.claims.claim import make_claim
from audit_pipeline.claims.extractor import SentenceClaimExtractor
from audit_pipeline.claims.span_alignment import locate
from audit_pipeline.llm.litellm_io import (
    LLMOutputError,
    ask_json,
    complete,
    fence,
    fence_rules,
    new_fence_tag,
    parse_json_object,
)
from audit_pipeline.records.claims import Claim

SCHEMA_HINT = '{"claims": [{"text": "<a claim copied from the answer>"}, ...]}'
_SYSTEM = """You extract the checkable factual claims from a chatbot's ANSWER for an audit.

{rules}

Rules for claims:
- Copy each claim verbatim from the answer: a contiguous piece of its text, one statement of
  fact each (split sentences that state several facts at their clause boundaries).
- Leave out greetings, questions, offers of help, refusals ("I don't have that information"),
  headings and citation markers such as [source: file.md#Section].
- Keep the claims in the order they appear.
Reply with only one JSON object: {schema}"""


@dataclass(frozen=True)
class ExtractionStatus:
    """How the last extraction went: ``ok``, ``repaired`` or ``fallback`` (with the reason)."""

    outcome: str
    detail: str = ""
    unmapped_claims: int = 0


def parse_claims(reply: str) -> list[str]:
    """Validate ``{"claims": [{"text": str}, ...]}``; raises :class:`LLMOutputError`."""
    data = parse_json_object(reply)
    claims = data.get("claims")
    if not isinstance(claims, list):
        raise LLMOutputError('"claims" must be a list')
    texts: list[str] = []
    for index, item in enumerate(claims):
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise LLMOutputError(f'claims[{index}] must be an object with a string "text"')
        if item["text"].strip():
            texts.append(item["text"].strip())
    return texts


class LLMClaimExtractor:
    """Claims from an LLM (any litellm model id), mapped onto exact response spans."""

    name = "llm"
    version = "1"

    def __init__(
        self, model: str, *, fallback_sentences: Sequence[str] = (), **litellm_params: Any
    ) -> None:
        self.model = model
        self.litellm_params = litellm_params
        self.fallback = SentenceClaimExtractor(fallback_sentences)
        self.last_status = ExtractionStatus("ok")

    def extract(self, response: str) -> list[Claim]:
        claims, self.last_status = self.extract_with_status(response)
        return claims

    def extract_with_status(self, response: str) -> tuple[list[Claim], ExtractionStatus]:
        if not response.strip():
            return [], ExtractionStatus("ok")
        tag = new_fence_tag()
        messages = [
            {
                "role": "system",
                "content": _SYSTEM.format(rules=fence_rules(tag), schema=SCHEMA_HINT),
            },
            {
                "role": "user",
                "content": f"{fence('ANSWER', response, tag)}\n\nList the claims as JSON only.",
            },
        ]
        try:
            texts, repaired = ask_json(
                lambda chat: complete(self.model, chat, **self.litellm_params),
                messages,
                parse_claims,
                SCHEMA_HINT,
            )
        except LLMOutputError as error:
            return self._fallback(response, f"invalid reply after one repair: {error}")
        except Exception as error:  # provider or network failure: fall back, keep going
            return self._fallback(response, f"call failed: {type(error).__name__}: {error}")

        claims: list[Claim] = []
        seen: set[tuple[int, int]] = set()
        unmapped = 0
        cursor = 0
        for text in texts:
            span = locate(response, text, start_at=cursor)
            if span is None or span in seen:
                unmapped += span is None
                continue
            seen.add(span)
            cursor = span[1]
            claims.append(make_claim(response, span[0], span[1], "llm"))
        if texts and not claims:
            return self._fallback(response, "no claim could be mapped onto the response")
        claims.sort(key=lambda claim: (claim.start, claim.end))
        return claims, ExtractionStatus("repaired" if repaired else "ok", unmapped_claims=unmapped)

    def _fallback(self, response: str, reason: str) -> tuple[list[Claim], ExtractionStatus]:
        return self.fallback.extract(response), ExtractionStatus("fallback", reason)
