"""The progress lines' timing rules, on a clock the test moves (``commands/progress.py``)."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest
from tqdm import tqdm

from audit_pipeline.commands.progress import StageLines, counts_text
from audit_pipeline.commands.run_command import _stage_lines
from audit_pipeline.targets.expected_time import answering_line, expected_time
from audit_pipeline.targets.target_config import (
    HttpTargetConfig,
    ReplayTargetConfig,
    VaultBotTargetConfig,
)


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


def test_on_a_terminal_the_stage_lines_print_above_the_answering_bar(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With a terminal the bar counts the answers and every stage still prints its line,
    through the bar's own writer (which keeps the bar below the lines)."""
    bar = tqdm(total=3, desc="answering", file=sys.stderr, leave=False, disable=False)
    lines = _stage_lines(no_progress=False, bar=bar)
    assert lines is not None
    lines.finished("claims", "claims 41")
    bar.close()
    assert re.search(r"\] claims done in \d+\.\ds: claims 41\n", capsys.readouterr().err)
    assert _stage_lines(no_progress=True, bar=None) is None


def test_the_line_before_answering_names_the_turns_the_target_and_the_time() -> None:
    bot = VaultBotTargetConfig()
    line = answering_line("vault_bot", bot, 65, use_cache=True)
    assert line.startswith("answering 65 turns with target vault_bot (vault_bot; a local model")
    assert "about 3 min on 2 idle cores" in line and "response cache" in line
    recorded = ReplayTargetConfig(path=Path("answers.jsonl"))
    assert expected_time(recorded, 12) == "recorded answers, no calls: seconds"
    http = HttpTargetConfig(url="http://127.0.0.1:9/chat", answer_path="$.answer")
    remote = answering_line("bot", http, 1, use_cache=False)
    assert remote == (
        "answering 1 turn with target bot (http; one call per turn, 4 at once, up to 60 s "
        "each: as fast as the service answers)"
    )
