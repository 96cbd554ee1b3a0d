from __future__ import annotations

import threading
from pathlib import Path

import pytest

from audit_pipeline.targets import ChatTurn, ResponseCache, TargetReply, TargetRequest


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
