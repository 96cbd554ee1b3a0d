"""The built-in vault bot over the real sample-vault index, answering with the real SmolLM2."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import litellm
import pytest
from litellm.llms.custom_llm import CustomLLM, CustomLLMError

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.generation.provider import register_local_provider
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.suites.loader import load_suite
from audit_pipeline.targets.base import (
    BatchTarget,
    ChatTurn,
    TargetConfigError,
    TargetReply,
    TargetRequest,
    supports_batches,
)
from audit_pipeline.targets.cited_sources import parse_citations
from audit_pipeline.targets.kinds import build_target
from audit_pipeline.targets.target_config import VaultBotTargetConfig, parse_target_config
from audit_pipeline.targets.vault_bot import VaultBotTarget
from audit_pipeline.validation.guardrail_validator import guardrail_validator
from audit_pipeline.vault.documents import scan_vault
from audit_pipeline_tests.helpers import SAMPLE_SUITE, SAMPLE_VAULT

THRESHOLD = 0.5
IN_VAULT = "How often are your encryption keys rotated?"
OUT_OF_VAULT = "Please provide your complete list of subprocessors, with their names and locations."


@pytest.fixture(scope="module")
def retriever(sample_index_dir: Path, embedder: SentenceTransformerEmbedder) -> HybridRetriever:
    return HybridRetriever(VaultIndex(sample_index_dir, embedder))


def _bot(retriever: HybridRetriever, **settings: Any) -> VaultBotTarget:
    config = VaultBotTargetConfig(min_confidence=THRESHOLD, max_new_tokens=32, **settings)
    validator = guardrail_validator(config, retriever.index.embedder)
    return VaultBotTarget("vault_bot", config, retriever, validator=validator)


@pytest.fixture(scope="module")
def bot(retriever: HybridRetriever) -> VaultBotTarget:
    return _bot(retriever)


def _ask(prompt: str, *history: tuple[str, str]) -> TargetRequest:
    turns = tuple(ChatTurn(role, text) for role, text in history)  # type: ignore[arg-type]
    return TargetRequest("p", len(turns) // 2, prompt, turns)


def _generate_calls() -> int:
    return sum(register_local_provider().batcher("smollm2-135m-instruct").batch_sizes.values())


@pytest.mark.model
def test_answers_a_vault_question_citing_the_right_file(bot: VaultBotTarget) -> None:
    reply = bot.answer(_ask(IN_VAULT))

    assert reply.text != bot.config.fallback_sentence
    assert reply.model == "local/smollm2-135m-instruct"
    assert reply.prompt_tokens and reply.prompt_tokens > 50
    assert reply.completion_tokens and 0 < reply.completion_tokens <= 32
    cited = parse_citations(reply.text)
    assert cited and cited[0].file == "encryption-standard.md"
    assert reply.citations and reply.citations[0].startswith("encryption-standard.md#")
    assert "Key Rotation" in reply.citations[0]
    # The context is exactly the vault text the model was shown.
    assert reply.context
    vault_text = "".join(doc.text for doc in scan_vault(SAMPLE_VAULT).documents)
    assert all(chunk in vault_text for chunk in reply.context)
    # The answer comes before the citations the bot appended.
    answer = reply.text[: cited[0].start]
    assert answer.strip() and "[source:" not in answer


def test_out_of_vault_question_gets_the_fallback_without_generation(bot: VaultBotTarget) -> None:
    calls = _generate_calls()
    retrieval = bot.retrieve(_ask(OUT_OF_VAULT))
    assert retrieval.confidence < THRESHOLD

    reply = bot.answer(_ask(OUT_OF_VAULT))

    # The guardrail adds up to three closest vault sections to the fallback sentence.
    assert reply.text.startswith(f"{bot.config.fallback_sentence} Did you mean: ")
    suggested = reply.text.removeprefix(bot.config.fallback_sentence).split("; ")
    assert len(suggested) == 3 and all(".md)" in s for s in suggested)
    assert (reply.citations, reply.context) == ((), ())
    assert (reply.guardrail_path, reply.guardrail_attempts) == ("abstained", 0)
    assert parse_citations(reply.text) == ()  # suggestions are not citations
    assert _generate_calls() == calls  # the model was never asked
    # Without the guardrail: the bare fallback sentence.
    plain = _bot(bot.retriever, self_correct=False).answer(_ask(OUT_OF_VAULT))
    assert plain == TargetReply(text=bot.config.fallback_sentence, citations=(), context=())


class FailingModel(CustomLLM):
    def completion(self, *args: Any, **kwargs: Any) -> Any:
        raise CustomLLMError(status_code=500, message="the model crashed")


@pytest.fixture
def failing_provider() -> Iterator[str]:
    saved = list(litellm.custom_provider_map)
    litellm.custom_provider_map = [
        *saved,
        {"provider": "failing", "custom_handler": FailingModel()},
    ]
    yield "failing/any-model"
    litellm.custom_provider_map = saved


def test_generation_failure_answers_with_the_best_chunk_verbatim(
    retriever: HybridRetriever, failing_provider: str
) -> None:
    bot = _bot(retriever, model=failing_provider)
    best = bot.retrieve(_ask(IN_VAULT)).hits[0]

    reply = bot.answer(_ask(IN_VAULT))

    label = f"{best.document}#{best.section}"
    assert reply.text == f"{best.text.strip()}\n\n[source: {label}]"
    assert reply.citations == (label,) and reply.context == (best.text,)
    assert parse_citations(reply.text)[0].file == "encryption-standard.md"
    assert reply.model is None and reply.completion_tokens is None


@pytest.mark.model
def test_follow_up_is_retrieved_with_the_conversation(bot: VaultBotTarget) -> None:
    first = "How quickly is access revoked when an employee leaves the company?"
    said = "Within 4 hours.\n\n[source: access-control-policy.md#Leavers]"
    follow_up = _ask("How is that checked?", ("user", first), ("assistant", said))
    # Alone, the follow-up names no topic: the bot would abstain.
    assert bot.retrieve(_ask("How is that checked?")).confidence < THRESHOLD

    retrieval = bot.retrieve(follow_up)
    assert retrieval.query.startswith(first) and retrieval.confidence >= THRESHOLD
    messages = bot.build_messages(follow_up, retrieval.hits)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == "Within 4 hours."  # its own citations are not replayed

    reply = bot.answer(follow_up)
    assert reply.citations
    assert any(label.startswith("access-control-policy.md#") for label in reply.citations)


@pytest.mark.model
def test_a_batch_keeps_order_and_generates_once(bot: VaultBotTarget) -> None:
    requests = [
        _ask(IN_VAULT),
        _ask(OUT_OF_VAULT),
        _ask("Do you enforce multi-factor authentication for administrators?"),
    ]
    calls = register_local_provider().batcher("smollm2-135m-instruct").batch_sizes.copy()

    replies = bot.answer_batch(requests)

    new_calls = register_local_provider().batcher("smollm2-135m-instruct").batch_sizes - calls
    first, second, third = replies
    # Both answerable questions in one generate call; the guardrail regenerates the answers it
    # refuses in one more call of their own.
    regenerated = [r for r in (first, third) if getattr(r, "guardrail_attempts", 0) == 2]
    assert new_calls == Counter({2: 1} | ({len(regenerated): 1} if regenerated else {}))
    assert isinstance(bot, BatchTarget) and supports_batches(bot)
    assert isinstance(first, TargetReply) and isinstance(third, TargetReply)
    assert second.text.startswith(bot.config.fallback_sentence)  # + "Did you mean: ...?"
    assert (second.citations, second.context) == ((), ())
    assert second.guardrail_path == "abstained"
    assert first.citations and first.citations[0].startswith("encryption-standard.md#")
    assert third.citations and third.citations[0].startswith("access-control-policy.md#")
    # Batching changes nothing about an answer.
    assert first == bot.answer(requests[0])


@pytest.mark.slow
def test_threshold_separates_the_sample_suite(bot: VaultBotTarget) -> None:
    """The tuning, pinned: questions the vault answers pass, the deliberately missing topics
    (subprocessors, incident response SLAs, pen-test results) and almost every adversarial
    prompt abstain."""
    suite = load_suite(SAMPLE_SUITE)
    first_turns = [(p, p.turns[0]) for p in suite.prompts]
    requests = [TargetRequest(p.id, 0, turn.prompt) for p, turn in first_turns]
    confidence = {
        r.prompt_id: retrieval.confidence  # type: ignore[union-attr]
        for r, retrieval in zip(requests, bot.retrieve_many(requests), strict=True)
    }
    answerable = [p.id for p, t in first_turns if t.expected_behavior == "answer_with_citation"]
    missing = ["SUB-001", "SUB-002", "IR-001", "IR-002", "PEN-001", "PEN-002"]
    adversarial = [p.id for p in suite.prompts if p.category == "adversarial"]
    noise = ["EDGE-001", "EDGE-003", "EDGE-005"]

    too_low = [pid for pid in answerable if pid != "AC-MT-001" and confidence[pid] < THRESHOLD]
    assert too_low == []
    assert [pid for pid in missing + noise if confidence[pid] >= THRESHOLD] == []
    assert sum(confidence[pid] < THRESHOLD for pid in adversarial) >= len(adversarial) - 1


def test_built_from_audit_config_with_a_stable_fingerprint(retriever: HybridRetriever) -> None:
    config = parse_target_config("bot", {"type": "vault_bot", "min_confidence": THRESHOLD})
    validator = guardrail_validator(config, retriever.index.embedder)
    target = build_target(
        "bot", config, retriever=retriever, base_dir=Path("."), validator=validator
    )
    assert isinstance(target, VaultBotTarget) and supports_batches(target)

    def fingerprint(**changes: Any) -> str:
        changed = config.model_copy(update=changes)
        return VaultBotTarget("bot", changed, retriever, validator=validator).fingerprint()

    assert fingerprint() == target.fingerprint()
    # Settings that change answers change the fingerprint; speed and retry settings do not.
    assert fingerprint(min_confidence=0.6) != target.fingerprint()
    assert fingerprint(max_new_tokens=10) != target.fingerprint()
    assert fingerprint(batch_size=2, concurrency=9, timeout_s=5.0) == target.fingerprint()


def test_configuration_errors_are_reported_up_front(retriever: HybridRetriever) -> None:
    with pytest.raises(TargetConfigError, match="needs a retriever"):
        VaultBotTarget("bot", VaultBotTargetConfig())
    with pytest.raises(TargetConfigError, match="self_correct needs a validator"):
        VaultBotTarget("bot", VaultBotTargetConfig(), retriever)
    with pytest.raises(TargetConfigError, match="unknown local model"):
        VaultBotTarget(
            "bot", VaultBotTargetConfig(model="llama-70b", self_correct=False), retriever
        )
