"""An LLM judge, through litellm, for claims the local verifier cannot settle.

The judge sees the claim and the evidence as fenced, untrusted data and must answer with a
JSON verdict that is validated field by field. A reply that is still invalid after one repair
attempt, or a provider error that outlived the retries, yields ``unverifiable`` rather than an
exception: one flaky call must not abort a batch audit, and "the judge could not decide" is
itself worth recording.

Transient provider failures are retried under the same policy as calls to the targets
(:mod:`audit_pipeline.retry`); the provider SDK is told not to retry on its own, so every
attempt is one HTTP call and is counted in the verdict's usage.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from audit_pipeline.llm.judge_settings import JudgeSettings
from audit_pipeline.llm.litellm_io import (
    LLMOutputError,
    ask_json,
    complete_with_usage,
    fence,
    fence_rules,
    is_transient,
    new_fence_tag,
    parse_json_object,
)
from audit_pipeline.records.claims import Claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.usage import LLMUsage
from audit_pipeline.records.verdicts import Label, Verdict
from audit_pipeline.retry import RetryPolicy

JUDGE_VERSION = "judge-prompt-1"
SCHEMA_HINT = (
    '{"label": "supported" | "weakly_supported" | "unsupported" | "contradicted" | '
    '"unverifiable", "probability": <number 0-1, probability the claim is supported by the '
    'evidence>, "justification": "<one or two sentences>", "supporting_chunk_ids": '
    '["<chunk id>", ...]}'
)
_SYSTEM = """You are a strict fact-checking judge for an audit of a chatbot's answers.
Decide whether one CLAIM taken from an answer is supported by the EVIDENCE passages.

{rules}

Labels:
- supported: the evidence states the claim (paraphrase is fine).
- weakly_supported: the evidence implies or only partly states the claim.
- unsupported: the evidence does not contain the information in the claim.
- contradicted: the evidence states something incompatible with the claim (a different
  number, date, name, or the negation).
- unverifiable: the claim is not a factual statement that evidence could settle.

Judge only against the evidence, not your own knowledge. Reply with only one JSON object:
{schema}
"""


def _evidence_block(passages: Sequence[EvidencePassage]) -> str:
    if not passages:
        return "(no evidence passages were retrieved)"
    return "\n---\n".join(
        f"[chunk_id: {p.chunk_id}] (document: {p.document}; section: {p.section})\n{p.text}"
        for p in passages
    )


def judge_messages(claim: str, passages: Sequence[EvidencePassage]) -> list[dict[str, str]]:
    tag = new_fence_tag()
    system = _SYSTEM.format(rules=fence_rules(tag), schema=SCHEMA_HINT)
    user = (
        f"{fence('CLAIM', claim, tag)}\n\n{fence('EVIDENCE', _evidence_block(passages), tag)}\n\n"
        "Judge the CLAIM against the EVIDENCE and reply with the JSON object only."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def parse_verdict(
    reply: str, known_chunk_ids: Sequence[str]
) -> tuple[Label, float, str, tuple[str, ...]]:
    """Validate a judge reply; raises :class:`LLMOutputError` naming the first problem."""
    data = parse_json_object(reply)
    raw_label = str(data.get("label", "")).strip().lower().replace(" ", "_").replace("-", "_")
    try:
        label = Label(raw_label)
    except ValueError as error:
        raise LLMOutputError(f"label {data.get('label')!r} is not one of the labels") from error
    probability = data.get("probability")
    if isinstance(probability, bool) or not isinstance(probability, (int, float)):
        raise LLMOutputError("probability must be a number")
    if not (math.isfinite(probability) and 0.0 <= probability <= 1.0):
        raise LLMOutputError("probability must be between 0 and 1")
    justification = data.get("justification", "")
    if not isinstance(justification, str):
        raise LLMOutputError("justification must be a string")
    ids = data.get("supporting_chunk_ids", [])
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise LLMOutputError("supporting_chunk_ids must be a list of strings")
    known = set(known_chunk_ids)
    cited = tuple(dict.fromkeys(i for i in ids if i in known))
    return label, float(probability), justification.strip()[:1000], cited


class LLMJudgeVerifier:
    """One litellm call per claim (plus at most one repair), run on a small thread pool.

    Each of those calls is retried on transient provider errors under ``retry`` (the shared
    policy; its defaults are the targets' defaults). ``max_retries`` in ``litellm_params``
    would make the provider SDK retry inside one attempt, unseen: it is 0 unless set there.
    """

    name = "llm_judge"

    def __init__(
        self,
        model: str,
        *,
        max_workers: int = 4,
        retry: RetryPolicy | None = None,
        **litellm_params: Any,
    ) -> None:
        self.model = model
        self.max_workers = max_workers
        self.retry = retry if retry is not None else RetryPolicy()
        self.litellm_params = {"max_retries": 0, **litellm_params}
        self.version = f"{JUDGE_VERSION}:{model}"

    def verify(
        self, claims: Sequence[Claim], evidence: Sequence[Sequence[EvidencePassage]]
    ) -> list[Verdict]:
        if len(claims) != len(evidence):
            raise ValueError(f"{len(claims)} claims but {len(evidence)} evidence lists")
        if self.max_workers <= 1 or len(claims) <= 1:
            return [self.verify_one(c, e) for c, e in zip(claims, evidence, strict=True)]
        with ThreadPoolExecutor(max_workers=self.max_workers) as pool:
            return list(pool.map(self.verify_one, claims, evidence))

    def verify_one(self, claim: Claim, passages: Sequence[EvidencePassage]) -> Verdict:
        """The verdict, charged with every call made for it (a repair is a second call)."""
        spent: list[LLMUsage] = []
        verdict = self._decide(claim, passages, spent)
        return verdict.with_usage(sum(spent, LLMUsage()))

    def _ask(self, messages: list[dict[str, str]], spent: list[LLMUsage]) -> str:
        """One call with its retries; raises the last error when the retries run out."""
        return self.retry.call(lambda: self._attempt(messages, spent), retryable=is_transient)

    def _attempt(self, messages: list[dict[str, str]], spent: list[LLMUsage]) -> str:
        """One attempt, recorded in ``spent`` even when it raises.

        An attempt that raised returned no usage to read; providers bill completed responses
        only, so it counts as a call that spent nothing.
        """
        try:
            reply, usage = complete_with_usage(self.model, messages, **self.litellm_params)
        except Exception:
            spent.append(LLMUsage(calls=1))
            raise
        spent.append(usage)
        return reply

    def _decide(
        self, claim: Claim, passages: Sequence[EvidencePassage], spent: list[LLMUsage]
    ) -> Verdict:
        messages = judge_messages(claim.text, passages)
        known = [p.chunk_id for p in passages]
        try:
            parsed, _ = ask_json(
                lambda chat: self._ask(chat, spent),
                messages,
                lambda reply: parse_verdict(reply, known),
                SCHEMA_HINT,
            )
        except LLMOutputError as error:
            return self._unverifiable(f"judge reply invalid after one repair: {error}")
        except Exception as error:  # provider, network, rate limit: record, do not abort
            return self._unverifiable(f"judge call failed: {type(error).__name__}: {error}")
        label, probability, justification, cited = parsed
        if label is Label.SUPPORTED and not cited:
            # A "supported" that cites no passage we gave it is not checkable provenance.
            label = Label.WEAKLY_SUPPORTED
            justification = f"{justification} (no valid supporting chunk cited)".strip()
        return Verdict(
            label=label,
            probability=probability,
            justification=justification,
            supporting_chunk_ids=cited,
            verifier=self.name,
            verifier_version=self.version,
            decided_by="judge",
        )

    def _unverifiable(self, reason: str) -> Verdict:
        return Verdict(
            label=Label.UNVERIFIABLE,
            probability=0.5,
            justification=reason[:1000],
            supporting_chunk_ids=(),
            verifier=self.name,
            verifier_version=self.version,
            decided_by="judge",
        )


def judge_from_settings(settings: JudgeSettings, api_key: str | None = None) -> LLMJudgeVerifier:
    """The judge ``detection.judge`` describes; ``api_key`` goes straight into the litellm
    call parameters and is never logged or stored."""
    return LLMJudgeVerifier(settings.model, **litellm_params(settings, api_key))


def litellm_params(settings: JudgeSettings, api_key: str | None) -> dict[str, Any]:
    """The litellm call parameters of ``settings`` (timeout, base URL, key when given)."""
    params: dict[str, Any] = {**settings.params, "timeout": settings.timeout_s}
    if settings.api_base:
        params["api_base"] = settings.api_base
    if api_key:
        params["api_key"] = api_key
    return params
