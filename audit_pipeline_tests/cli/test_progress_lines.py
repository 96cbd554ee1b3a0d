"""The progress lines' timing rules, on a clock the test moves (``commands/progress.py``)."""

from __future__ import annotations

import io

from audit_pipeline.commands.progress import StageLines, counts_text


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_stage_line_has_the_elapsed_time_its_duration_and_counts() -> None:
    out, clock = io.StringIO(), Clock()
    lines = StageLines(out, clock)
    lines.started("claims")
    clock.now += 12.34
    figures = {"audit_id": "x", "claims": 41, "share": 0.123456, "latency_ms": 20123.4}
    lines.finished("claims", counts_text(figures))
    expected = "[   12.3s] claims done in 12.3s: claims 41, share 0.123, latency_ms 20123\n"
    assert out.getvalue() == expected


def test_a_long_stage_says_it_is_still_running_every_heartbeat() -> None:
    out, clock = io.StringIO(), Clock()
    lines = StageLines(out, clock, heartbeat_s=30)
    lines.started("verdicts")
    clock.now += 29
    lines.heartbeat()
    assert out.getvalue() == ""
    clock.now += 2
    lines.heartbeat()
    lines.heartbeat()  # once per heartbeat, not per poll
    assert out.getvalue().splitlines() == ["[   31.0s] verdicts still running (31s)"]


def test_answering_is_throttled_but_the_last_count_always_shows() -> None:
    out, clock = io.StringIO(), Clock()
    lines = StageLines(out, clock)
    for done in range(1, 6):
        lines.answering(done, 5)
        clock.now += 3
    assert [line.split("] ")[1] for line in out.getvalue().splitlines()] == [
        "responses 1/5",
        "responses 5/5",
    ]
