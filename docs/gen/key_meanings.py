"""What a configuration key means, for the keys whose model states it neither in a field
``description`` nor in a comment yet (the old README's configuration table, moved here).

The generator prefers the model's own words; ``unknown_keys`` (run by ``--check`` and a test)
fails for an entry that names no key of the models, so this list can only lose entries, never
describe a key that is gone. Moving an entry into its model's ``Field(description=...)`` and
deleting it here is the way forward.
"""

from __future__ import annotations

MEANINGS: dict[str, str] = {
    "vault.path": "directory of trusted documents",
    "vault.max_file_bytes": "larger files are skipped with a warning (raise it for PDFs full of"
    " images: the limit is on the file, not its text)",
    "chunking.target_words": "chunk size in words; chunks never cross a heading",
    "chunking.overlap_words": "words shared by consecutive chunks of a long section",
    "embedding.provider": "`sentence_transformers`: the shipped model (or the folder of a local"
    " sentence-transformers model), offline; `litellm`: any litellm embedding model id",
    "embedding.model": "the model of the vault index and of retrieval",
    "embedding.device": "where a local model runs",
    "embedding.batch_size": "texts per batch (per request, with a provider)",
    "embedding.api_key_env": "`litellm` only: the environment variable holding the key",
    "embedding.api_base": "`litellm` only: the endpoint (a proxy, a self-hosted server)",
    "embedding.timeout_s": "`litellm` only: the time limit of one request",
    "storage.duckdb_path": "the results warehouse",
    "storage.lancedb_path": "the vault index (LanceDB)",
    "storage.index_table": "the LanceDB table of the vault's chunks",
    "retrieval.top_k": "hits returned per search",
    "retrieval.rrf_k": "the reciprocal-rank-fusion constant",
    "collections.NAME.min_score": "0..1: a hit of the collection scoring below is dropped",
    "collections.NAME.top_k": "at most this many chunks of the collection per query",
    "evaluation.golden_set": "the golden set of retrieval queries (JSONL)",
    "evaluation.max_drop.precision": "`retrieval-eval --baseline` fails when precision drops"
    " more than this (a fraction: 0.05 = 5 points)",
    "evaluation.max_drop.hit_precision": "as `precision`, for hit precision (off by default)",
    "evaluation.max_drop.recall": "as `precision`, for recall (off by default)",
    "evaluation.max_drop.mrr": "as `precision`, for MRR (off by default)",
    "targets.NAME.type": "which kind of system: `vault_bot`, `litellm`, `http` or `replay`",
    "targets.NAME.model": "`litellm`: any litellm model id; `vault_bot`: its local model",
    "targets.NAME.params": "extra litellm parameters (temperature, ...)",
    "targets.NAME.api_key_env": "the environment variable holding the key (never the key)",
    "targets.NAME.api_base": "the endpoint (a proxy, a self-hosted server)",
    "targets.NAME.system_prompt": "the system message sent before the conversation",
    "targets.NAME.url": "the chat endpoint (http or https only)",
    "targets.NAME.headers": "headers sent as written",
    "targets.NAME.headers_env": 'header -> environment variable, or `"Bearer ${VAR}"`',
    "targets.NAME.request_template": "the JSON body, with `{{prompt}}`, `{{history}}`,"
    " `{{messages}}`",
    "targets.NAME.answer_path": "JSON path of the answer in the reply",
    "targets.NAME.citations_path": "JSON path of the citations the bot reports",
    "targets.NAME.context_path": "JSON path of the context the bot used (evidence comes from it)",
    "targets.NAME.max_body_bytes": "larger replies are an error row",
    "targets.NAME.path": "the recording: JSONL, CSV or Parquet of recorded answers",
    "targets.NAME.match_on": "how a recorded row finds its turn: `prompt_id`, `prompt` or `auto`",
    "targets.NAME.fallback_sentence": "what the bot says when the vault does not answer",
    "targets.NAME.min_confidence": "below this retrieval confidence the bot falls back",
    "targets.NAME.top_k": "passages shown to the bot's model",
    "targets.NAME.max_new_tokens": "the longest answer the bot's model writes",
    "targets.NAME.guardrail_min_confidence": "the guardrail regenerates an answer validated"
    " below this confidence",
    "defaults.suite": "what `make audit` / `audit-pipeline run` audit without `--suite`",
    "defaults.target": "what `make audit` / `audit-pipeline run` audit without `--target`",
    "cache.dir": "disk response cache",
    "cache.use_by_default": "answer unchanged prompts from the cache; scheduled audits bypass it",
    "detection.extractor": "claim extractor: `sentences` (offline) or `llm`",
    "detection.evidence_top_k": "evidence passages per claim",
    "detection.verifier": "`local`, `llm` or `cascade`",
    "detection.judge.model": "the litellm judge (and `llm` extractor)",
    "scoring.weights": "the risk formula's weight per label",
    "scoring.deploy_max_risk": "at or below this risk the risk zone is deploy",
    "scoring.warn_max_risk": "at or below this risk (above deploy) the zone is warn; above it"
    " block",
    "scoring.on_incomplete": "what an incomplete audit decides: `incomplete` (exit 2) or"
    " `block` (exit 1)",
    "gates.block_decision": "what the risk gate's block zone means: `error` (block) or `warn`",
    "gates.hallucinations_error": "more answers with a hallucination than this: ERROR",
    "gates.citation_errors_warn": "more citation errors than this: WARN",
    "gates.citation_errors_error": "more citation errors than this: ERROR",
    "gates.pass_rate_warn": "a pass rate below this: WARN",
    "gates.pass_rate_error": "a pass rate below this: ERROR",
    "gates.fallback_errors_warn": "more fallback errors than this: WARN",
    "gates.fallback_errors_error": "more fallback errors than this: ERROR",
    "validation.accept_confidence": "Self-RAG gate: accept at or above (and no hallucinated claim)",
    "validation.reject_confidence": "Self-RAG gate: reject below; retry between",
    "validation.relevance_floor": "question-source cosine mapped to relevance 0",
    "validation.relevance_full": "question-source cosine mapped to relevance 1",
    "validation.usefulness_floor": "question-answer cosine mapped to usefulness 0",
    "validation.usefulness_full": "question-answer cosine mapped to usefulness 1",
    "validation.checks": "`offline`, or `llm`: ask `judge` for relevance and usefulness (fenced,"
    " JSON validated; an unusable reply falls back to offline)",
    "reports.dir": "HTML and Markdown reports",
    "automation.weekly_audit.timezone": "the time zone of the cron expression",
    "automation.weekly_audit.enabled": "the schedule's default status in the UI",
    "automation.vault_sensor.enabled": "the vault change sensor's default status",
    "automation.vault_sensor.interval_s": "seconds between two looks at the vault",
    "automation.suite_sensor.enabled": "the suite change sensor's default status",
    "automation.suite_sensor.interval_s": "seconds between two looks at the suites",
    "automation.marks_sensor.enabled": "the marks sensor's default status",
    "automation.marks_sensor.interval_s": "seconds between two looks at the marks",
    "reliability.embedding_breaker.failure_threshold": "failures that open the circuit breaker",
    "reliability.embedding_breaker.reset_timeout_s": "seconds open before a trial call",
    "reliability.embedding_breaker.success_threshold": "successes that close it again",
    "reliability.embedding_breaker.fallback_penalty": "how much BM25-only fused scores are"
    " lowered while it is open",
    "service.workers": "validations in progress at once",
    "service.queue": "requests waiting beyond them; more get 503 with Retry-After",
    "service.time_budget_s": "a request not answered this long after it arrived gets 504",
    "service.max_body_bytes": "larger HTTP bodies get 413 before they are parsed",
}
