"""Coalesce concurrent single generation requests into batched ``generate`` calls.

litellm's ``completion`` takes one conversation per call and ``batch_completion`` fans a list
out to threads, one ``completion`` each. Batching therefore has to happen below litellm: each
call hands its conversation to this batcher and waits; one worker thread drains whatever has
queued up (within ``linger_s`` of the last arrival, at most ``max_batch``) and runs it as one
left-padded ``generate``. Every call still goes through litellm (its logging, callbacks, usage
accounting), and callers who send requests concurrently get batched generation for free.
"""

from __future__ import annotations

import os
import queue
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

from audit_pipeline.generation.local_model import Generation

Conversation = Sequence[Mapping[str, str]]
BatchFn = Callable[[list[Conversation], int, tuple[str, ...]], list[Generation]]


@dataclass
class _Job:
    conversation: Conversation
    settings: tuple[int, tuple[str, ...]]  # max_new_tokens, stop strings
    future: Future[Generation] = field(default_factory=Future)


class MicroBatcher:
    """Runs ``generate_batch`` on one worker thread for requests submitted from any thread.

    Requests that arrive while a batch is generating wait and form the next batch, so under
    load batches fill up by themselves; a lone request waits at most ``linger_s`` extra.
    Requests with different settings (``max_new_tokens``, ``stop``) go to separate ``generate``
    calls, so each gets the answer it would get alone.
    """

    def __init__(self, generate_batch: BatchFn, max_batch: int = 8, linger_s: float = 0.05):
        if max_batch < 1:
            raise ValueError(f"max_batch must be at least 1, got {max_batch}")
        self._generate_batch = generate_batch
        self.max_batch = max_batch
        self.linger_s = linger_s
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._worker: threading.Thread | None = None
        self._pid = os.getpid()
        self.batch_sizes: Counter[int] = Counter()  # generate calls made, by size (benchmarks)

    def submit(
        self, conversation: Conversation, max_new_tokens: int, stop: Sequence[str] = ()
    ) -> Future[Generation]:
        job = _Job(conversation, (max_new_tokens, tuple(stop)))
        self._ensure_worker()
        self._queue.put(job)
        return job.future

    def generate(
        self, conversation: Conversation, max_new_tokens: int, stop: Sequence[str] = ()
    ) -> Generation:
        return self.submit(conversation, max_new_tokens, stop).result()

    def _ensure_worker(self) -> None:
        with self._lock:
            if os.getpid() != self._pid:  # forked: the parent's thread does not exist here
                self._pid = os.getpid()
                self._queue = queue.SimpleQueue()
                self._worker = None
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(
                    target=self._run, args=(self._queue,), name="local-llm-batcher", daemon=True
                )
                self._worker.start()

    def _run(self, jobs: queue.SimpleQueue[_Job]) -> None:
        while True:
            batch = [jobs.get()]
            while len(batch) < self.max_batch:
                try:
                    batch.append(jobs.get(timeout=self.linger_s))
                except queue.Empty:
                    break
            groups: dict[tuple[int, tuple[str, ...]], list[_Job]] = {}
            for job in batch:
                groups.setdefault(job.settings, []).append(job)
            for settings, group in groups.items():
                self._execute(group, *settings)

    def _execute(self, group: list[_Job], max_new_tokens: int, stop: tuple[str, ...]) -> None:
        live = [job for job in group if job.future.set_running_or_notify_cancel()]
        if not live:
            return
        self.batch_sizes[len(live)] += 1
        try:
            conversations = [job.conversation for job in live]
            results = self._generate_batch(conversations, max_new_tokens, stop)
            if len(results) != len(live):
                raise RuntimeError(f"generate_batch returned {len(results)} for {len(live)}")
        except BaseException as exc:  # the worker must outlive a failed batch
            for job in live:
                job.future.set_exception(exc)
            return
        for job, result in zip(live, results, strict=True):
            job.future.set_result(result)
