"""The time budget binds the work, not only the caller (issue 33, row 1).

Six concurrent ``POST /validate`` of one 100,000-character sentence each (within every
documented limit) used to get 504 at the budget while the worker went on computing for
minutes, so every validation after them got 504 as well. Now the one that runs stops within a
few claims of its deadline, the ones waiting for their turn give up without starting, and a
small validation right after them is answered in under 5 s.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from audit_pipeline_tests.helpers import write_audit_config
from audit_pipeline_tests.service.servers import RunningApi, running_api
from audit_pipeline_tests.validation.sample_sources import BACKUP_SOURCES

BUDGET_S = 8.0
# One sentence of 100,000 characters: no full stop until the end, values and names throughout.
ONE_SENTENCE = (
    "B"
    + " and ".join(
        f"backups of Region {n} in Frankfurt are kept for {n % 90 + 1} days under policy SEC-{n}"
        for n in range(3000)
    )[1:99_999]
    + "."
)
SMALL = {
    "question": "How long are backups kept?",
    "answer": "Backups are kept for 35 days.",
    "sources": BACKUP_SOURCES,
}


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, sample_index_dir: Path
) -> Iterator[RunningApi]:
    root = tmp_path_factory.mktemp("budget")
    config = write_audit_config(root, sample_index_dir, service={"time_budget_s": BUDGET_S})
    with running_api(config) as api:
        warm = httpx.post(f"{api.url}/validate", json=SMALL, timeout=300)  # models loaded
        assert warm.status_code == 200, warm.text
        yield api


@pytest.mark.slow
def test_six_huge_sentences_then_a_small_validation_in_under_5_s(served: RunningApi) -> None:
    assert len(ONE_SENTENCE) == 100_000 and ONE_SENTENCE.count(".") == 1
    body = {"question": "How long are backups kept?", "answer": ONE_SENTENCE}

    def post(_: int) -> tuple[int, float]:
        started = time.monotonic()
        reply = httpx.post(f"{served.url}/validate", json=body, timeout=BUDGET_S + 60)
        return reply.status_code, time.monotonic() - started

    with ThreadPoolExecutor(6) as callers:
        answered = list(callers.map(post, range(6)))
    assert [status for status, _ in answered] == [504] * 6, answered
    assert all(took < BUDGET_S + 5 for _, took in answered), answered

    # The work stopped with its callers: no validation is left running or waiting.
    pool = served.app.state.gateway.pool
    deadline = time.monotonic() + 15
    while pool.admitted and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pool.admitted == 0

    started = time.monotonic()
    reply = httpx.post(f"{served.url}/validate", json=SMALL, timeout=60)
    took = time.monotonic() - started
    assert reply.status_code == 200, reply.text
    assert took < 5.0, f"a small validation took {took:.1f} s after the burst"


def test_one_long_sentence_is_checked_as_bounded_fragments(served: RunningApi) -> None:
    """A 1,500-character sentence is cut into claims of at most 600 characters, each with
    its exact span, and the answer says so."""
    words = [
        "backups",
        "of",
        "the",
        "production",
        "databases",
        "are",
        "kept",
        "for",
        "thirty",
        "five",
        "days",
        "and",
    ]
    answer = " ".join(words[n % len(words)] for n in range(260)).capitalize()[:1499] + "."
    reply = httpx.post(
        f"{served.url}/validate",
        json={
            "question": "How long are backups kept?",
            "answer": answer,
            "sources": BACKUP_SOURCES,
        },
        timeout=BUDGET_S + 60,
    )
    assert reply.status_code == 200, reply.text
    result = reply.json()
    claims = result["claims"]
    assert len(claims) == 3 and all(len(claim["text"]) <= 600 for claim in claims)
    assert all(answer[claim["start"] : claim["end"]] == claim["text"] for claim in claims)
    assert {claim["kind"] for claim in claims} == {"fragment"}
    assert any("longer than 600 characters were cut into fragments" in n for n in result["notes"])


def test_the_guard_stops_work_at_its_deadline_and_never_after_the_block() -> None:
    from audit_pipeline.service.deadline_guard import DeadlineGuard, WorkStopped

    started = time.monotonic()
    with pytest.raises(WorkStopped), DeadlineGuard(started + 0.3):
        while True:  # pure Python work that never looks at the clock
            sum(range(1000))
    assert time.monotonic() - started < 3.0
    with DeadlineGuard(time.monotonic() + 0.2):
        pass  # left before the deadline: nothing may land later
    time.sleep(0.5)
    with DeadlineGuard(None):
        time.sleep(0.05)
