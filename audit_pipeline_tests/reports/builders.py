"""Build audits in a real temporary warehouse, row by row, the way the audit stages store them.

Scores are computed from the claims added (as the scoring stage would) unless a test pins
them, so a test only states what it is about: a response, a claim and its label, an assertion.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from audit_pipeline.warehouse.store import Warehouse

LABELS = ("supported", "weakly_supported", "unsupported", "contradicted", "unverifiable")


def _hash(*parts: object) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()


@dataclass
class AuditBuilder:
    audit_id: str
    target: str = "vault_bot"
    suite: str = "security-questionnaire"
    suite_hash: str = "suitehash0001"
    started_at: datetime = field(default_factory=lambda: datetime(2026, 11, 23, 8, 0, tzinfo=UTC))
    decision: str | None = None
    decision_rule: str | None = None
    risk: float | None = None
    hallucination_rate: float | None = None
    scope: str = "full"  # audits.scope: full, partial or interactive
    suite_rows: list[dict[str, Any]] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    assertions: list[dict[str, Any]] = field(default_factory=list)
    categories: dict[tuple[str, int], str] = field(default_factory=dict)
    category_risk: dict[str, float] = field(default_factory=dict)

    def turn(
        self,
        prompt_id: str,
        category: str,
        prompt: str,
        response: str | None,
        *,
        turn: int = 0,
        citations: Sequence[Mapping[str, Any]] = (),
        error: str | None = None,
        expected_behavior: str | None = "answer_with_citation",
    ) -> AuditBuilder:
        prompt_hash = _hash(prompt_id, prompt)
        self.categories[(prompt_id, turn)] = category
        self.suite_rows.append(
            {
                "suite": self.suite,
                "suite_hash": self.suite_hash,
                "prompt_id": prompt_id,
                "prompt_hash": prompt_hash,
                "category": category,
                "turn": turn,
                "prompt": prompt,
                "expected_behavior": expected_behavior,
                "required_signals": [],
                "must_not_appear": [],
                "source_path": "data/prompt-suites/security-questionnaire.yaml",
                "loaded_at": self.started_at,
            }
        )
        self.responses.append(
            {
                "audit_id": self.audit_id,
                "prompt_id": prompt_id,
                "turn": turn,
                "target": self.target,
                "model": "acme-bot-2026-10",
                "prompt": prompt,
                "prompt_hash": prompt_hash,
                "response": response,
                "citations": json.dumps(list(citations)),
                "latency_ms": 812.0,
                "prompt_tokens": 120,
                "completion_tokens": 64,
                "cost": 0.0,
                "error": error,
                "attempts": 1,
                "from_cache": False,
                "started_at": self.started_at,
                "finished_at": self.started_at + timedelta(seconds=1),
            }
        )
        return self

    def claim(
        self,
        prompt_id: str,
        text: str,
        label: str,
        *,
        turn: int = 0,
        span: tuple[int, int] | None = None,
        probability: float = 0.9,
        justification: str = "",
        evidence: Iterable[Mapping[str, Any]] = (),
        supporting: Sequence[str] = (),
        error_spans: Sequence[tuple[int, int]] = (),
        verifier: str = "local-nli",
        verifier_version: str = "1.0",
    ) -> str:
        """Add a claim with its verdict; the span defaults to where the text is in the answer.

        ``error_spans`` count from the claim's start, as the verifier reports them.
        """
        response = next(
            r["response"] or ""
            for r in self.responses
            if r["prompt_id"] == prompt_id and r["turn"] == turn
        )
        if span is None:
            start = response.find(text)
            if start < 0:
                raise ValueError(f"claim text not in the {prompt_id} response: {text!r}")
            span = (start, start + len(text))
        claim_id = _hash(self.audit_id, prompt_id, turn, text, span)[:16]
        self.claims.append(
            {
                "audit_id": self.audit_id,
                "prompt_id": prompt_id,
                "turn": turn,
                "claim_id": claim_id,
                "text": text,
                "start_char": span[0],
                "end_char": span[1],
                "kind": "sentence",
                "extractor": "sentences-v1",
            }
        )
        self.verdicts.append(
            {
                "audit_id": self.audit_id,
                "claim_id": claim_id,
                "prompt_id": prompt_id,
                "turn": turn,
                "label": label,
                "probability": probability,
                "justification": justification,
                "supporting_chunk_ids": list(supporting),
                "verifier": verifier,
                "verifier_version": verifier_version,
                "decided_by": "local",
                "error_spans": json.dumps([list(span) for span in error_spans]),
            }
        )
        for rank, item in enumerate(evidence, start=1):
            self.evidence.append(
                {
                    "audit_id": self.audit_id,
                    "claim_id": claim_id,
                    "rank": rank,
                    "chunk_id": item.get("chunk_id", f"chunk-{rank}"),
                    "document": item.get("document"),
                    "section": item.get("section"),
                    "text": item.get("text", ""),
                    "vector_score": item.get("vector_score", 0.71),
                    "bm25_score": item.get("bm25_score", 8.2),
                    "fused_score": item.get("fused_score", 0.032),
                    "source": "hybrid",
                    "fallback_mode": False,
                }
            )
        return claim_id

    def assertion(
        self, prompt_id: str, name: str, passed: bool, detail: str | None = None, *, turn: int = 0
    ) -> AuditBuilder:
        self.assertions.append(
            {
                "audit_id": self.audit_id,
                "prompt_id": prompt_id,
                "turn": turn,
                "category": self.categories[(prompt_id, turn)],
                "assertion": name,
                "passed": passed,
                "detail": detail,
            }
        )
        return self

    # -- scores ----------------------------------------------------------------------------

    def _score_row(
        self, scope: str, labels: list[str], category: str | None, risk: float | None
    ) -> dict[str, Any]:
        counts = {label: labels.count(label) for label in LABELS}
        bad = counts["unsupported"] + counts["contradicted"]
        verifiable = len(labels) - counts["unverifiable"]
        rate = bad / len(labels) if labels else None
        if risk is None and verifiable:
            risk = (counts["unsupported"] + 2 * counts["contradicted"]) / (2 * verifiable)
        return {
            "audit_id": self.audit_id,
            "scope": scope,
            "prompt_id": None,
            "turn": None,
            "category": category,
            "claims": len(labels),
            **counts,
            "risk": risk,
            "hallucination_rate": rate,
            "citation_accuracy": 0.9,
            "fallback_rate": 0.0,
            "refusal_rate": 0.0,
            "decision": None,
        }

    def score_rows(self) -> list[dict[str, Any]]:
        label_of = {v["claim_id"]: v["label"] for v in self.verdicts}
        by_category: dict[str, list[str]] = defaultdict(list)
        for claim in self.claims:
            category = self.categories[(claim["prompt_id"], claim["turn"])]
            by_category[category].append(label_of[claim["claim_id"]])
        categories = dict.fromkeys(self.categories.values())
        rows = [
            self._score_row("category", by_category.get(c, []), c, self.category_risk.get(c))
            for c in categories
        ]
        everything = [label for labels in by_category.values() for label in labels]
        audit_row = self._score_row("audit", everything, None, self.risk)
        if self.hallucination_rate is not None:
            audit_row["hallucination_rate"] = self.hallucination_rate
        audit_row["decision"] = self.decision
        return [*rows, audit_row]

    def audit_row(self) -> dict[str, Any]:
        risk = self.risk
        if risk is None:
            risk = self.score_rows()[-1]["risk"]
        return {
            "audit_id": self.audit_id,
            "started_at": self.started_at,
            "finished_at": self.started_at + timedelta(minutes=4, seconds=12),
            "status": "finished",
            "target": self.target,
            "suite": self.suite,
            "suite_hash": self.suite_hash,
            "vault_hash": "vaulthash9f3c2a1b7e",
            "config_hash": "confighash41d2",
            "dagster_run_id": "run-" + self.audit_id[-8:],
            "decision": self.decision,
            "decision_rule": self.decision_rule,
            "risk": risk,
            "scope": self.scope,
        }


def write_all(warehouse: Warehouse, *audits: AuditBuilder) -> None:
    """Store the audits (and the union of their suite rows) the way the stages would."""
    warehouse.migrate()
    suite_rows: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    for audit in audits:
        for row in audit.suite_rows:
            key = (row["suite"], row["suite_hash"], row["prompt_id"], row["turn"])
            suite_rows[key] = row
    writes: list[tuple[str, Any, Mapping[str, Any] | None]] = []
    for suite, suite_hash in {(k[0], k[1]) for k in suite_rows}:
        rows = [r for k, r in suite_rows.items() if k[:2] == (suite, suite_hash)]
        writes.append(("suite_prompts", rows, {"suite": suite, "suite_hash": suite_hash}))
    for audit in audits:
        where = {"audit_id": audit.audit_id}
        writes.extend(
            [
                ("audits", [audit.audit_row()], where),
                ("responses", audit.responses, where),
                ("claims", audit.claims, where),
                ("evidence", audit.evidence, where),
                ("verdicts", audit.verdicts, where),
                ("assertion_results", audit.assertions, where),
                ("risk_scores", audit.score_rows(), where),
            ]
        )
    warehouse.replace_many(writes)


def without_mark_script(page: str) -> str:
    """The page without its one script, the mark control (allowed by hash): asserts it is
    there exactly once, so what remains can be checked for any other script."""
    from audit_pipeline.reports.mark_control import script_element

    element = str(script_element())
    assert page.count(element) == 1
    return page.replace(element, "")
