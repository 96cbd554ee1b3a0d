from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

import pytest

from audit_pipeline.targets import ChatTurn, ResponseCache, TargetReply, TargetRequest
from audit_pipeline.targets.base import fingerprint_of


def test_round_trip_and_key_sensitivity(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    request = TargetRequest("P", 0, "hello")
    key = ResponseCache.key("fp1", request)
    assert cache.get(key) is None
    reply = TargetReply(
        text="hi", model="m", citations=("a.md",), context=("ctx",), prompt_tokens=3, cost=0.5
    )
    cache.put(key, reply, latency_ms=12.5)
    hit = cache.get(key)
    assert hit is not None and hit.reply == reply and hit.latency_ms == 12.5
    assert ResponseCache.key("fp1", TargetRequest("OTHER-ID", 0, "hello")) == key
    assert ResponseCache.key("fp2", request) != key
    with_history = TargetRequest("P", 1, "hello", (ChatTurn("user", "earlier"),))
    assert ResponseCache.key("fp1", with_history) != key


def test_unreadable_entries_are_misses(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = ResponseCache.key("fp", TargetRequest("P", 0, "q"))
    cache.put(key, TargetReply(text="ok"), latency_ms=1.0)
    path = cache.path_for(key)
    for junk in ('{"format": 1, "reply": {"text": 5}}', "{not json", '["list"]'):
        path.write_text(junk)
        assert cache.get(key) is None


def test_foreign_or_mistyped_entries_are_misses_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Validation is strict: a number written as text or a boolean is not taken as a count."""
    cache = ResponseCache(tmp_path)
    key = ResponseCache.key("fp", TargetRequest("P", 0, "q"))
    cache.put(key, TargetReply(text="ok"), latency_ms=1.0)
    path = cache.path_for(key)
    entry = json.loads(path.read_text())
    variants = {
        "future format": {**entry, "format": 2},
        "no format": {k: v for k, v in entry.items() if k != "format"},
        "bool tokens": {**entry, "reply": {**entry["reply"], "prompt_tokens": True}},
        "text cost": {**entry, "reply": {**entry["reply"], "cost": "0.5"}},
        "citations not strings": {**entry, "reply": {**entry["reply"], "citations": [1]}},
        "bad date": {**entry, "stored_at": "yesterday"},
    }
    for name, variant in variants.items():
        path.write_text(json.dumps(variant))
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="audit_pipeline.targets.cache"):
            assert cache.get(key) is None, name
        assert "ignoring unreadable cache entry" in caplog.text, name


def test_an_entry_in_the_format_written_before_pydantic_still_reads(tmp_path: Path) -> None:
    """The on-disk format did not change with the pydantic model: old entries stay hits."""
    cache = ResponseCache(tmp_path)
    key = ResponseCache.key("fp", TargetRequest("P", 0, "q"))
    old = {
        "format": 1,
        "stored_at": "2025-03-01T10:00:00.123456+00:00",
        "latency_ms": 12,
        "reply": {
            "text": "hi",
            "model": "m",
            "citations": ["a.md"],
            "context": None,
            "prompt_tokens": 3,
            "completion_tokens": None,
            "cost": 0.5,
            "guardrail_attempts": 2,
            "guardrail_path": "regenerated",
        },
    }
    cache.path_for(key).parent.mkdir(parents=True)
    cache.path_for(key).write_text(json.dumps(old))
    hit = cache.get(key)
    assert hit is not None and hit.latency_ms == 12.0
    assert hit.reply == TargetReply(
        text="hi",
        model="m",
        citations=("a.md",),
        prompt_tokens=3,
        cost=0.5,
        guardrail_attempts=2,
        guardrail_path="regenerated",
    )
    assert hit.stored_at.isoformat() == "2025-03-01T10:00:00.123456+00:00"


def test_keys_and_fingerprints_are_stable() -> None:
    """Pinned digests, computed before the key and fingerprint payloads became pydantic
    models: a change here re-keys every cache directory and must bump CACHE_FORMAT."""
    dash = "\u2013"  # non-ASCII on purpose: keys are built from UTF-8 JSON
    history = (ChatTurn("user", f"Hallo {dash} „Frage“"), ChatTurn("assistant", "Grüß dich"))
    request = TargetRequest("P-1", 1, "Wie lange dauert die Rückerstattung?", history)
    assert ResponseCache.key("fp-ä", request) == (
        "729061a9c867b6ed6608fbf6d1055476a063997d21a680f565bb8ddfd3e51d15"
    )
    assert ResponseCache.key("fp-ä", request, by_prompt_id=True) == (
        "0616e70a05c46e3f7300772a1e56d64c8ef130b997d23cb15dec104af1fccb5e"
    )
    settings = {
        "url": "https://bot.example/ä",
        "headers": {"B": "2", "A": "1"},
        "n": None,
        "t": (1, 2.5),
        "p": Path("/x/y"),
        "flag": True,
    }
    assert fingerprint_of("http", settings) == (
        "eb7ade105f87ea921adbeceb534cf9b72e3fc991051f4cd7562412e8aa429032"
    )


def test_failed_write_keeps_the_old_entry_and_leaves_no_temp_file(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = ResponseCache.key("fp", TargetRequest("P", 0, "q"))
    cache.put(key, TargetReply(text="good"), latency_ms=1.0)
    unserialisable = TargetReply(text="half", cost=object())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cache.put(key, unserialisable, latency_ms=1.0)
    hit = cache.get(key)
    assert hit is not None and hit.reply.text == "good"
    assert [p.name for p in cache.path_for(key).parent.iterdir()] == [f"{key}.json"]


def test_concurrent_writers_leave_one_complete_entry(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = ResponseCache.key("fp", TargetRequest("P", 0, "q"))
    texts = [f"writer {index} " + "x" * 20_000 for index in range(16)]
    barrier = threading.Barrier(len(texts))

    def write(text: str) -> None:
        barrier.wait()
        for _ in range(5):
            cache.put(key, TargetReply(text=text), latency_ms=1.0)
            hit = cache.get(key)
            assert hit is not None and hit.reply.text in texts

    threads = [threading.Thread(target=write, args=(text,)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    final = cache.get(key)
    assert final is not None and final.reply.text in texts
    assert len(list(cache.path_for(key).parent.iterdir())) == 1


def test_a_key_by_prompt_id_separates_prompts_with_the_same_words() -> None:
    first = ResponseCache.key("fp", TargetRequest("A", 0, "same"), by_prompt_id=True)
    assert ResponseCache.key("fp", TargetRequest("B", 0, "same"), by_prompt_id=True) != first
    assert ResponseCache.key("fp", TargetRequest("A", 1, "same"), by_prompt_id=True) != first
    assert ResponseCache.key("fp", TargetRequest("A", 0, "same"), by_prompt_id=True) == first
