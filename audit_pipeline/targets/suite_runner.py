"""Send a prompt suite to a target: bounded concurrency, retries, cache, one row per turn.

Prompts run in parallel; the turns of one conversation run in order, each seeing the earlier
user messages and the bot's replies. A failure becomes a row with ``error`` set and the run
goes on, so one flaky answer never costs the whole audit.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import cast

from audit_pipeline.logs import log_event, request_id
from audit_pipeline.records.responses import Citation, ResponseRecord
from audit_pipeline.retry import RetryPolicy
from audit_pipeline.suites.prompt_suite import PromptSuite, SuitePrompt
from audit_pipeline.targets.base import (
    BatchTarget,
    ChatTurn,
    RetryableTargetError,
    Target,
    TargetError,
    TargetReply,
    TargetRequest,
    supports_batches,
)
from audit_pipeline.targets.cache import ResponseCache
from audit_pipeline.targets.cited_sources import citation_from_label, parse_citations
from audit_pipeline.targets.secrets import redact_reply, target_secrets

ProgressCallback = Callable[[int, int], None]
# The JSON logs' ``component`` is the logger name: kept as ``targets.runner`` from before the
# module was renamed, so log queries and dashboards keep working.
log = logging.getLogger("audit_pipeline.targets.runner")


def run_suite(
    suite: PromptSuite,
    target: Target,
    *,
    audit_id: str,
    concurrency: int = 4,
    cache: ResponseCache | None = None,
    use_cache: bool = True,
    progress: ProgressCallback | None = None,
    max_retries: int = 3,
    backoff_base_s: float = 0.5,
) -> list[ResponseRecord]:
    """Answer every turn of every prompt; records come back in suite order.

    ``use_cache=False`` (the weekly audit) asks the target every time but still refreshes the
    cache. ``progress(done, total)`` counts turns and is called from worker threads, one call
    at a time. Retries follow the shared :class:`~audit_pipeline.retry.RetryPolicy`
    (``max_retries`` after the first attempt, exponential backoff from ``backoff_base_s`` with
    jitter) and apply to ``RetryableTargetError`` only.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    policy = RetryPolicy(max_retries=max_retries, backoff_base_s=backoff_base_s)
    run = _SuiteRun(suite, target, audit_id, cache, use_cache, progress, policy)
    return run.execute(concurrency)


class _SuiteRun:
    """State of one ``run_suite`` call; results are keyed by (prompt id, turn)."""

    def __init__(
        self,
        suite: PromptSuite,
        target: Target,
        audit_id: str,
        cache: ResponseCache | None,
        use_cache: bool,
        progress: ProgressCallback | None,
        policy: RetryPolicy,
    ) -> None:
        self.suite = suite
        self.target = target
        self.audit_id = audit_id
        self.cache = cache
        self.use_cache = use_cache
        self.progress = progress
        self.policy = policy
        self.fingerprint = target.fingerprint() if cache is not None else ""
        self.secrets = target_secrets(target)
        # Whether the answer depends on the prompt id and turn, not only on the words.
        self.by_prompt_id = bool(getattr(target, "answers_by_prompt_id", False))
        self.total = sum(len(prompt.turns) for prompt in suite.prompts)
        self.results: dict[tuple[str, int], ResponseRecord] = {}
        self.lock = threading.Lock()

    def execute(self, concurrency: int) -> list[ResponseRecord]:
        pool = ThreadPoolExecutor(concurrency, thread_name_prefix="audit-target")
        try:
            if supports_batches(self.target):
                self._turns_in_rounds(pool)
            else:
                futures = [
                    pool.submit(self._conversation, prompt, 0, ()) for prompt in self.suite.prompts
                ]
                for future in futures:
                    future.result()  # re-raises a bug in the runner itself
        except BaseException:
            # Stopped (Ctrl-C, SIGTERM) or broken: the queued calls are dropped rather than
            # sent, and the caller closes the target, which ends the calls in flight.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return [
            self.results[(prompt.id, turn)]
            for prompt in self.suite.prompts
            for turn in range(len(prompt.turns))
        ]

    # -- conversations -------------------------------------------------------------------

    def _conversation(self, prompt: SuitePrompt, start: int, history: tuple[ChatTurn, ...]) -> None:
        for index in range(start, len(prompt.turns)):
            request = TargetRequest(prompt.id, index, prompt.turns[index].prompt, history)
            record = self._cached(prompt, request) or self._call(prompt, request)
            self._store(record)
            if record.error is not None or record.response is None:
                self._skip_rest(prompt, index)
                return
            history = (
                *history,
                ChatTurn("user", request.prompt),
                ChatTurn("assistant", record.response),
            )

    def _skip_rest(self, prompt: SuitePrompt, failed_turn: int) -> None:
        """Later turns cannot be asked without the failed reply: they get error rows."""
        now = _now()
        for index in range(failed_turn + 1, len(prompt.turns)):
            self._store(
                self._record(
                    prompt,
                    TargetRequest(prompt.id, index, prompt.turns[index].prompt),
                    reply=None,
                    error=f"not sent: turn {failed_turn} of this conversation failed",
                    attempts=0,
                    latency_ms=None,
                    started_at=now,
                    finished_at=now,
                )
            )

    def _call(self, prompt: SuitePrompt, request: TargetRequest) -> ResponseRecord:
        started_at = _now()
        began = time.perf_counter()  # of the latest attempt: a row's latency is its last call's

        def ask_once() -> TargetReply:
            nonlocal began
            began = time.perf_counter()
            return redact_reply(_checked(self.target.answer(request)), self.secrets)

        def log_retry(attempt: int, error: BaseException, delay: float) -> None:
            log_event(
                log,
                "target_retry",
                level=logging.WARNING,
                request_id=request_id(self.audit_id, request.prompt_id, request.turn),
                latency_ms=(time.perf_counter() - began) * 1000,
                target=self.target.name,
                attempt=attempt,
                backoff_s=round(delay, 3),
                error=str(error)[:200],
            )

        outcome = self.policy.run(ask_once, retryable=_retryable, on_retry=log_retry)
        latency_ms = (time.perf_counter() - began) * 1000
        reply, error = outcome.value, None
        if outcome.error is not None:
            reply, error = None, _failure_text(outcome.error, outcome.attempts, outcome.exhausted)
        if reply is not None:
            self._remember(request, reply, latency_ms)
        return self._record(
            prompt, request, reply, error, outcome.attempts, latency_ms, started_at, _now()
        )

    # -- batches ----------------------------------------------------------------------------

    def _turns_in_rounds(self, pool: ThreadPoolExecutor) -> None:
        """Every prompt's first turn in batches, then every second turn whose conversation so
        far was answered, and so on: a follow-up waits only for its own earlier turns, and a
        batch target answers follow-ups in batches like first turns."""
        live: list[tuple[SuitePrompt, tuple[ChatTurn, ...]]] = [(p, ()) for p in self.suite.prompts]
        turn = 0
        while live:
            answered = self._round(pool, turn, live)
            following: list[tuple[SuitePrompt, tuple[ChatTurn, ...]]] = []
            for prompt, history in live:
                record = answered[prompt.id]
                if record.error is not None or record.response is None:
                    self._skip_rest(prompt, turn)
                elif turn + 1 < len(prompt.turns):
                    said = (
                        ChatTurn("user", prompt.turns[turn].prompt),
                        ChatTurn("assistant", record.response),
                    )
                    following.append((prompt, (*history, *said)))
            live, turn = following, turn + 1

    def _round(
        self,
        pool: ThreadPoolExecutor,
        turn: int,
        conversations: Sequence[tuple[SuitePrompt, tuple[ChatTurn, ...]]],
    ) -> dict[str, ResponseRecord]:
        """Turn ``turn`` of each conversation (with its history so far), cached answers first,
        the rest in batches of the target's ``batch_size``; the records by prompt id."""
        answered: dict[str, ResponseRecord] = {}
        pending: list[tuple[SuitePrompt, TargetRequest]] = []
        for prompt, history in conversations:
            request = TargetRequest(prompt.id, turn, prompt.turns[turn].prompt, history)
            hit = self._cached(prompt, request)
            if hit is None:
                pending.append((prompt, request))
            else:
                self._store(hit)
                answered[prompt.id] = hit
        size = int(getattr(self.target, "batch_size", 1))
        batches = [pending[start : start + size] for start in range(0, len(pending), size)]
        for records in pool.map(self._batch, batches):
            for record in records:
                self._store(record)
                answered[record.prompt_id] = record
        return answered

    def _batch(self, batch: Sequence[tuple[SuitePrompt, TargetRequest]]) -> list[ResponseRecord]:
        """One batch with per-item retries: only the items that failed retryably go again.

        Each round of the batch is one attempt under the shared retry policy: a round that
        leaves retryable failures raises :class:`_ItemsToRetry`, so every item still pending
        has taken part in every round and the policy's attempt limit is the items' limit.
        """
        size = len(batch)
        replies: list[TargetReply | None] = [None] * size
        errors: list[str | None] = [None] * size
        last_error: dict[int, RetryableTargetError] = {}
        attempts = [0] * size
        latency = [0.0] * size
        started_at = _now()
        todo = list(range(size))

        def answer_round() -> None:
            nonlocal todo
            began = time.perf_counter()
            outcome = self._answer_batch([batch[index][1] for index in todo])
            elapsed_ms = (time.perf_counter() - began) * 1000
            again: list[int] = []
            for index, item in zip(todo, outcome, strict=True):
                attempts[index] += 1
                latency[index] = elapsed_ms
                if isinstance(item, TargetReply):
                    replies[index] = item
                elif isinstance(item, RetryableTargetError):
                    again.append(index)
                    last_error[index] = item
                else:
                    errors[index] = _error_text(item)
            todo = again
            if again:
                hints = [last_error[index].retry_after_s or 0.0 for index in again]
                raise _ItemsToRetry(max(hints) or None)

        if todo:
            try:
                self.policy.call(answer_round, retryable=_pending)
            except _ItemsToRetry:
                for index in todo:
                    errors[index] = _failure_text(last_error[index], attempts[index], True)
        finished_at = _now()
        records = []
        for index, (prompt, request) in enumerate(batch):
            reply = replies[index]
            if reply is not None:
                self._remember(request, reply, latency[index])
            records.append(
                self._record(
                    prompt,
                    request,
                    reply,
                    errors[index],
                    attempts[index],
                    latency[index],
                    started_at,
                    finished_at,
                )
            )
        return records

    def _answer_batch(self, requests: list[TargetRequest]) -> list[TargetReply | Exception]:
        """``answer_batch`` with its failure modes turned into one outcome per request."""
        try:
            outcome = cast(BatchTarget, self.target).answer_batch(requests)
        except Exception as exc:
            return [exc] * len(requests)
        if not isinstance(outcome, list) or len(outcome) != len(requests):
            count = len(outcome) if isinstance(outcome, list) else type(outcome).__name__
            problem = TargetError(f"answer_batch returned {count} results for {len(requests)}")
            return [problem] * len(requests)
        checked: list[TargetReply | Exception] = []
        for item in outcome:
            try:
                checked.append(
                    item
                    if isinstance(item, Exception)
                    else redact_reply(_checked(item), self.secrets)
                )
            except TargetError as exc:
                checked.append(exc)
        return checked

    # -- cache, records, progress -------------------------------------------------------------

    def _cached(self, prompt: SuitePrompt, request: TargetRequest) -> ResponseRecord | None:
        if self.cache is None or not self.use_cache:
            return None
        hit = self.cache.get(self._key(request))
        if hit is None:
            return None
        now = _now()
        reply = redact_reply(hit.reply, self.secrets)  # entries written before redaction
        return self._record(
            prompt, request, reply, None, 0, hit.latency_ms, now, now, from_cache=True
        )

    def _key(self, request: TargetRequest) -> str:
        return ResponseCache.key(self.fingerprint, request, by_prompt_id=self.by_prompt_id)

    def _remember(self, request: TargetRequest, reply: TargetReply, latency_ms: float) -> None:
        if self.cache is None:
            return
        try:
            self.cache.put(self._key(request), reply, latency_ms)
        except OSError as exc:  # a full disk must not fail the audit
            log.warning("could not write response cache entry: %s", exc)

    def _record(
        self,
        prompt: SuitePrompt,
        request: TargetRequest,
        reply: TargetReply | None,
        error: str | None,
        attempts: int,
        latency_ms: float | None,
        started_at: datetime,
        finished_at: datetime,
        *,
        from_cache: bool = False,
    ) -> ResponseRecord:
        citations: tuple[Citation, ...]
        if reply is None:
            citations = ()
        elif reply.citations is None:
            citations = parse_citations(reply.text)
        else:
            citations = tuple(citation_from_label(label) for label in reply.citations)
        return ResponseRecord(
            audit_id=self.audit_id,
            prompt_id=request.prompt_id,
            turn=request.turn,
            target=self.target.name,
            model=reply.model if reply else None,
            prompt=request.prompt,
            response=reply.text if reply else None,
            citations=citations,
            context=reply.context if reply else None,
            latency_ms=latency_ms,
            prompt_tokens=reply.prompt_tokens if reply else None,
            completion_tokens=reply.completion_tokens if reply else None,
            cost=reply.cost if reply else None,
            error=error,
            attempts=attempts,
            from_cache=from_cache,
            started_at=started_at,
            finished_at=finished_at,
            prompt_hash=prompt.prompt_hash,
            guardrail_attempts=reply.guardrail_attempts if reply else None,
            guardrail_path=reply.guardrail_path if reply else None,
        )

    def _store(self, record: ResponseRecord) -> None:
        log_event(
            log,
            "target_call",
            level=logging.WARNING if record.error else logging.INFO,
            request_id=request_id(self.audit_id, record.prompt_id, record.turn),
            latency_ms=record.latency_ms,
            target=record.target,
            status="error" if record.error else ("cached" if record.from_cache else "ok"),
            attempts=record.attempts,
            **({"error": record.error[:200]} if record.error else {}),
        )
        key = (record.prompt_id, record.turn)
        with self.lock:
            if key in self.results:
                raise RuntimeError(f"prompt {key[0]!r} turn {key[1]} answered twice")
            self.results[key] = record
            if self.progress is not None:
                self.progress(len(self.results), self.total)


class _ItemsToRetry(Exception):
    """Some items of a batch failed retryably: the policy runs another round for them.

    Carries the largest Retry-After hint among them, which the policy's backoff honours.
    """

    def __init__(self, retry_after_s: float | None) -> None:
        super().__init__("batch items to retry")
        self.retry_after_s = retry_after_s


def _retryable(error: BaseException) -> bool:
    """Only a target's transient failures are worth another attempt."""
    return isinstance(error, RetryableTargetError)


def _pending(error: BaseException) -> bool:
    return isinstance(error, _ItemsToRetry)


def _failure_text(error: Exception, attempts: int, exhausted: bool) -> str:
    """The row's error: a transient failure that outlived the retries says so."""
    return f"gave up after {attempts} attempts: {error}" if exhausted else _error_text(error)


def _checked(reply: object) -> TargetReply:
    """Targets are code we call, but their replies carry untrusted model output: check shape."""
    if not isinstance(reply, TargetReply):
        raise TargetError(f"target returned {type(reply).__name__}, not a TargetReply")
    if not isinstance(reply.text, str):
        raise TargetError(f"target reply text is {type(reply.text).__name__}, not a string")
    return reply


def _error_text(exc: object) -> str:
    if isinstance(exc, TargetError):
        return str(exc) or type(exc).__name__
    if isinstance(exc, BaseException):
        return f"{type(exc).__name__}: {exc}"
    return f"answer_batch returned {type(exc).__name__}, not a TargetReply or an exception"


def _now() -> datetime:
    return datetime.now(UTC)
