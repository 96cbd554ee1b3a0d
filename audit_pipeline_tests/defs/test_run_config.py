"""One configuration object per run: ``audit.yaml`` is read once by the ``settings`` resource,
and the rules that depend on it (the built-in bot's fallback sentence) are written once."""

from __future__ import annotations

from pathlib import Path

import pytest
from dagster import build_init_resource_context

from audit_pipeline.assertions.behavior import find_fallback
from audit_pipeline.config import load_config
from audit_pipeline.defs import resources
from audit_pipeline.defs.resources import AuditResource
from audit_pipeline.embedding_cache import PersistentEmbeddingCache
from audit_pipeline_tests.helpers import write_audit_config

BOT_SENTENCE = "I can't answer that from the trusted documents available to me."


def _config_path(tmp_path: Path) -> Path:
    return write_audit_config(
        tmp_path,
        targets={
            "bot": {"type": "vault_bot"},
            "recorded": {"type": "replay", "path": "answers.jsonl"},
        },
        assertions={"fallback_sentences": ["No idea.", BOT_SENTENCE]},
    )


def test_the_resource_reads_audit_yaml_once_per_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _config_path(tmp_path)
    reads: list[str] = []

    def counting_load(source: str | Path):  # type: ignore[no-untyped-def]
        reads.append(str(source))
        return load_config(source)

    monkeypatch.setattr(resources, "load_config", counting_load)
    resource = AuditResource(config_path=str(path))
    resource.setup_for_execution(build_init_resource_context())
    first = resource.config
    path.write_text("this: is no longer a valid audit configuration\n")
    # Every asset of the run sees the configuration the run started with.
    assert resource.config is first
    assert reads == [str(path)]


def test_the_bot_fallback_sentence_is_merged_once_for_claims_and_assertions(
    tmp_path: Path,
) -> None:
    config = load_config(_config_path(tmp_path))
    assert config.assertion_rules("bot").fallback_sentences == ("No idea.", BOT_SENTENCE)
    assert config.assertion_rules("recorded") == config.assertions
    assert config.assertion_rules(None) == config.assertions


def test_a_custom_bot_sentence_is_recognised_as_its_fallback(tmp_path: Path) -> None:
    custom = "Sorry, the handbook does not cover that."
    path = write_audit_config(
        tmp_path,
        targets={"bot": {"type": "vault_bot", "fallback_sentence": custom}},
        defaults={"suite": "security-questionnaire", "target": "bot"},
    )
    rules = load_config(path).assertion_rules("bot")
    assert custom in rules.fallback_sentences
    assert find_fallback(custom, rules) is not None
    assert find_fallback(custom, load_config(path).assertions) is None


def test_no_asset_reads_the_configuration_file_itself() -> None:
    defs = Path(resources.__file__).parent
    for module in defs.glob("*_assets.py"):
        text = module.read_text()
        assert "load_config" not in text and "settings.load(" not in text, module.name


def test_index_settings_reach_the_vault_index(tmp_path: Path) -> None:
    """retrieval.ann_min_rows and storage.embedding_cache are what the audit's index uses."""
    config_path = write_audit_config(
        tmp_path, private_embeddings=True, retrieval={"ann_min_rows": 123}
    )
    built = resources.resources_from_config(str(config_path), load_config(config_path))
    index = built["index"]
    assert isinstance(index, resources.VaultIndexResource)
    vault_index = index.index()
    assert vault_index.ann_min_rows == 123
    assert isinstance(vault_index.embedder, PersistentEmbeddingCache)
    assert vault_index.embedder.path == tmp_path / "data" / "warehouse" / "embeddings.sqlite"
