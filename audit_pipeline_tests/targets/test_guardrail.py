"""The vault bot's guardrail over the real sample-vault index and the real validation engine,
with a scripted litellm provider in place of SmolLM2 (the bot's generation seam)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import litellm
import pytest
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.index.hits import SearchHit
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.targets.base import TargetRequest
from audit_pipeline.targets.guardrail import STRICT_SYSTEM_PROMPT, suggestions
from audit_pipeline.targets.target_config import VaultBotTargetConfig
from audit_pipeline.targets.vault_bot import SYSTEM_PROMPT, VaultBotTarget
from audit_pipeline.validation.guardrail_validator import guardrail_validator

QUESTION = "How often are your encryption keys rotated?"
GOOD = "Key encryption keys are rotated automatically every 12 months."
INVENTED = "Encryption keys are rotated every 5 years by the external auditor Deloitte."


class ScriptedModel(CustomLLM):
    """Answers from a script, one per call, and remembers the system prompt of each call."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__()
        self.answers = list(answers)
        self.system_prompts: list[str] = []

    def completion(self, *args: Any, **kwargs: Any) -> ModelResponse:
        messages = kwargs["messages"]
        self.system_prompts.append(next(m["content"] for m in messages if m["role"] == "system"))
        response: ModelResponse = kwargs["model_response"]
        response.model = "scripted/bot"
        response.choices[0].message.content = self.answers.pop(0)  # type: ignore[union-attr]
        return response


@pytest.fixture(scope="module")
def retriever(sample_index_dir: Path, embedder: SentenceTransformerEmbedder) -> HybridRetriever:
    return HybridRetriever(VaultIndex(sample_index_dir, embedder))


@pytest.fixture
def scripted() -> Iterator[ScriptedModel]:
    model = ScriptedModel([])
    saved = list(litellm.custom_provider_map)
    litellm.custom_provider_map = [*saved, {"provider": "scripted", "custom_handler": model}]
    yield model
    litellm.custom_provider_map = saved


def _answer(retriever: HybridRetriever, scripted: ScriptedModel, *answers: str) -> Any:
    scripted.answers = list(answers)
    config = VaultBotTargetConfig(model="scripted/bot", min_confidence=0.5)
    return _vault_bot(config, retriever).answer(TargetRequest("p", 0, QUESTION))


def _vault_bot(config: VaultBotTargetConfig, retriever: HybridRetriever) -> VaultBotTarget:
    validator = guardrail_validator(config, retriever.index.embedder)
    return VaultBotTarget("vault_bot", config, retriever, validator=validator)


def test_a_supported_answer_is_accepted(
    retriever: HybridRetriever, scripted: ScriptedModel
) -> None:
    reply = _answer(retriever, scripted, GOOD)

    assert reply.text.startswith(GOOD) and "[source: encryption-standard.md#" in reply.text
    assert (reply.guardrail_path, reply.guardrail_attempts) == ("accepted", 1)
    assert scripted.system_prompts == [SYSTEM_PROMPT]


def test_a_hallucinated_answer_is_regenerated_under_the_strict_prompt(
    retriever: HybridRetriever, scripted: ScriptedModel
) -> None:
    reply = _answer(retriever, scripted, INVENTED, GOOD)

    assert reply.text.startswith(GOOD) and "Deloitte" not in reply.text
    assert (reply.guardrail_path, reply.guardrail_attempts) == ("regenerated", 2)
    assert scripted.system_prompts == [SYSTEM_PROMPT, STRICT_SYSTEM_PROMPT]


def test_two_hallucinated_answers_fall_back_to_the_best_passage(
    retriever: HybridRetriever, scripted: ScriptedModel
) -> None:
    best = retriever.search(QUESTION, k=4)[0]

    reply = _answer(retriever, scripted, INVENTED, INVENTED)

    label = f"{best.document}#{best.section}"
    assert reply.text == f"{best.text.strip()}\n\n[source: {label}]"
    assert reply.citations == (label,) and reply.context == (best.text,)
    assert (reply.guardrail_path, reply.guardrail_attempts) == ("extractive", 2)
    assert len(scripted.system_prompts) == 2  # regenerated once, not more
    assert not scripted.answers


def test_self_correct_off_returns_the_first_answer(
    retriever: HybridRetriever, scripted: ScriptedModel
) -> None:
    scripted.answers = [INVENTED]
    config = VaultBotTargetConfig(model="scripted/bot", self_correct=False)
    reply = _vault_bot(config, retriever).answer(TargetRequest("p", 0, QUESTION))

    assert reply.text.startswith(INVENTED)
    assert reply.guardrail_path is None and reply.guardrail_attempts is None


def test_guardrail_columns_round_trip_through_duckdb(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from audit_pipeline.records.responses import ResponseRecord
    from audit_pipeline.warehouse.audit_tables import load_response_records, write_responses
    from audit_pipeline.warehouse.store import Warehouse

    store = Warehouse(tmp_path / "audit.duckdb")
    store.migrate()
    now = datetime.now(UTC)
    common: dict[str, Any] = dict(
        audit_id="a1", target="vault_bot", model=None, prompt="q", response="r", citations=(),
        context=None, latency_ms=1.0, prompt_tokens=None, completion_tokens=None, cost=None,
        error=None, attempts=1, from_cache=False, started_at=now, finished_at=now,
        prompt_hash="h",
    )  # fmt: skip
    records = [
        ResponseRecord(prompt_id="p1", turn=0, **common, guardrail_attempts=2,
                       guardrail_path="extractive"),
        ResponseRecord(prompt_id="p2", turn=0, **common),
    ]  # fmt: skip
    write_responses(store, "a1", records)

    rows = store.query(
        "SELECT prompt_id, guardrail_attempts, guardrail_path FROM responses ORDER BY prompt_id"
    )
    assert rows.iloc[0].tolist() == ["p1", 2, "extractive"]
    assert [r.guardrail_path for r in load_response_records(store, "a1")] == ["extractive", None]


def test_suggestions_name_sections_without_their_numbering() -> None:
    def hit(section: str, document: str) -> SearchHit:
        return SearchHit("c", document, "t", section, "x", 0, 1, 0.5, 1.0, 0.1)

    hits = [
        hit("Policy > 3. Scope of the ISMS", "iso.md"),
        hit("FAQ > How quickly will I get access?", "faq.md"),
        hit("Policy > 3. Scope of the ISMS", "iso.md"),
        hit("", "notes.md"),
    ]
    assert suggestions(hits) == [
        "Scope of the ISMS (iso.md)",
        "How quickly will I get access (faq.md)",
        "notes.md",
    ]
