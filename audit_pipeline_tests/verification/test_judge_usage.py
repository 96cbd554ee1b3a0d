"""Judge cost accounting: every verdict carries the tokens and price of its judge calls.

The calls go through real litellm: its ``mock_response`` path for a listed model, and the
scripted provider (``fake_llm``) to choose the model a reply claims, its tokens and its errors.
"""

from __future__ import annotations

from typing import cast

import pytest
from litellm import cost_per_token

from audit_pipeline.claims import make_claim
from audit_pipeline.records.usage import LLMUsage
from audit_pipeline.retry import RetryPolicy
from audit_pipeline.verification import Label, LLMJudgeVerifier, verify_answer
from audit_pipeline_tests.verification.fake_llm import ScriptedLLM, scripted_provider
from audit_pipeline_tests.verification.test_cascade import CLAIMS, FixedReading, cascade
from audit_pipeline_tests.verification.test_judge import CLAIM, EVIDENCE, verdict_json

TOKENS = (1000, 100)


def approx_cost(value: float) -> float:
    """``pytest.approx`` in place of a cost, so LLMUsage equality tolerates float rounding."""
    return cast(float, pytest.approx(value))


def price(calls: int = 1, model: str = "gpt-3.5-turbo") -> float:
    """What litellm's price list says ``calls`` calls of ``TOKENS`` cost."""
    prompt, completion = cost_per_token(
        model=model, prompt_tokens=TOKENS[0], completion_tokens=TOKENS[1]
    )
    return calls * (prompt + completion)


def test_a_judged_verdict_carries_its_tokens_and_cost() -> None:
    llm = ScriptedLLM([verdict_json("supported")], usage=TOKENS)
    with scripted_provider(llm) as model:
        [verdict] = LLMJudgeVerifier(model).verify([CLAIM], [EVIDENCE])
    assert verdict.usage == LLMUsage(1, *TOKENS, cost_usd=approx_cost(price()))
    assert verdict.cost_usd and verdict.cost_usd > 0


def test_litellm_mock_response_is_counted_and_priced() -> None:
    judge = LLMJudgeVerifier("openai/gpt-4o-mini", mock_response=verdict_json("unsupported"))
    [verdict] = judge.verify([CLAIM], [EVIDENCE])
    assert verdict.label is Label.UNSUPPORTED and verdict.judge_calls == 1
    assert verdict.prompt_tokens and verdict.completion_tokens  # litellm's mock usage block
    assert verdict.cost_usd is not None and verdict.cost_usd > 0


def test_a_model_litellm_cannot_price_has_unknown_cost_but_known_tokens() -> None:
    llm = ScriptedLLM(
        [verdict_json("supported")], model="openai/unpriced-local-model", usage=TOKENS
    )
    with scripted_provider(llm) as model:
        [verdict] = LLMJudgeVerifier(model).verify([CLAIM], [EVIDENCE])
    assert (verdict.judge_calls, verdict.prompt_tokens, verdict.completion_tokens) == (1, *TOKENS)
    assert verdict.cost_usd is None


def test_a_repair_retry_charges_both_calls_to_the_same_verdict() -> None:
    llm = ScriptedLLM(["{broken", verdict_json("unsupported", 0.1, ())], usage=TOKENS)
    with scripted_provider(llm) as model:
        [verdict] = LLMJudgeVerifier(model).verify([CLAIM], [EVIDENCE])
    assert verdict.label is Label.UNSUPPORTED and len(llm.calls) == 2
    assert verdict.usage == LLMUsage(2, 2 * TOKENS[0], 2 * TOKENS[1], approx_cost(price(2)))


def test_a_failed_repair_call_keeps_the_first_calls_tokens() -> None:
    llm = ScriptedLLM(["not json", ConnectionError("reset")], usage=TOKENS)
    retry = RetryPolicy(max_retries=1, backoff_base_s=0)
    with scripted_provider(llm) as model:
        [verdict] = LLMJudgeVerifier(model, retry=retry).verify([CLAIM], [EVIDENCE])
    assert verdict.label is Label.UNVERIFIABLE
    # The repair call and its retry raised: both count, but returned no usage, so they add
    # no tokens and no cost.
    assert verdict.usage == LLMUsage(3, *TOKENS, cost_usd=approx_cost(price()))


def test_unknown_cost_makes_the_sum_unknown() -> None:
    known, unknown = LLMUsage(1, 10, 5, 0.01), LLMUsage(1, 10, 5, None)
    assert known + known == LLMUsage(2, 20, 10, 0.02)
    assert known + unknown == LLMUsage(2, 20, 10, None)


def test_the_cascade_charges_only_the_claims_it_sent_to_the_judge() -> None:
    llm = ScriptedLLM(
        [verdict_json("contradicted", 0.02, ()), "garbage", "still garbage"],
        repeat_last=False,
        usage=TOKENS,
    )
    claims = [*CLAIMS[:3], make_claim("Epsilon is five.", 0, 16, "sentence")]
    with scripted_provider(llm) as model:
        chain = cascade(
            [FixedReading([0.05, 0.45, 0.98, 0.6])], LLMJudgeVerifier(model, max_workers=1)
        )
        verdicts = verify_answer(chain, claims, [[] for _ in claims]).verdicts
    assert [v.decided_by for v in verdicts] == ["model", "judge", "model", "model"]
    assert [v.judge_calls for v in verdicts] == [0, 1, 0, 2]  # the failed judge is still paid
    assert verdicts[0].usage == verdicts[2].usage == LLMUsage()
    total = sum((v.usage for v in verdicts), LLMUsage())
    assert total == LLMUsage(3, 3 * TOKENS[0], 3 * TOKENS[1], approx_cost(price(3)))
