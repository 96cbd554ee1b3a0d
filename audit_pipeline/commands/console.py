"""What the CLI prints: summary tables, the decision, the worst claims with their evidence.

Model text is printed only after control characters are removed, so an answer under audit
cannot move the cursor or recolour the terminal of the engineer reading it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TextIO

from audit_pipeline.records.marks import marks_phrase
from audit_pipeline.reports.formatting import plain_excerpt
from audit_pipeline.scoring.audit_outcome import AuditOutcome
from audit_pipeline.scoring.gates import GateResult
from audit_pipeline.scoring.rules import ReleaseDecision
from audit_pipeline.warehouse.store import Warehouse

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
MAX_SKIPPED_SHOWN = 20
MAX_FAILURES_SHOWN = 10
_BADGE = {"deploy": "DEPLOY", "warn": "WARN", "block": "BLOCK", "incomplete": "INCOMPLETE"}


def clean(text: Any, width: int | None = None) -> str:
    value = _CONTROL.sub(" ", "" if text is None else str(text)).replace("\n", " ")
    if width is not None and len(value) > width:
        return value[: width - 1] + "…"
    return value


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], out: TextIO) -> None:
    cells = [[clean(row.get(c), 60) for c in columns] for row in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)), file=out)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _risk(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def print_outcome(outcome: AuditOutcome, out: TextIO | None = None) -> None:
    out = out or sys.stdout  # looked up per call: a caller may have replaced it
    summary = outcome.summary
    print(f"\nAudit {outcome.audit_id}  target={outcome.target}  suite={outcome.suite}", file=out)
    rows = [
        {"category": name, "passed": v["passed"], "failed": v["failed"], "risk": _risk(v["risk"])}
        for name, v in outcome.by_category.items()
    ]
    table(rows, ["category", "passed", "failed", "risk"], out)
    print(
        f"\nprompts {summary['total']}  passed {summary['passed']}  failed {summary['failed']}"
        f"  pass rate {_pct(summary['pass_rate'])}  assertions {summary['assertions_passed']}"
        f" passed / {summary['assertions_failed']} failed",
        file=out,
    )
    print(
        f"hallucinations {summary['hallucinations']}  citation errors "
        f"{summary['citation_errors']}  fallback errors {summary['fallback_errors']}",
        file=out,
    )
    print_gates(outcome.gates, out)
    print_failing_prompts(outcome.failures, out)
    for problem in outcome.incomplete:
        print(f"incomplete: {problem}", file=out)
    print_waivers(outcome.waivers, out)
    if outcome.fuzz:
        print("\nfuzz variants by transformation:", file=out)
        rows = [
            {
                "transformation": name,
                **counts,
                "pass rate": _pct(counts["passed"] / counts["prompts"]),
            }
            for name, counts in outcome.fuzz.items()
        ]
        table(rows, ["transformation", "prompts", "passed", "failed", "pass rate"], out)


def print_failing_prompts(
    failures: Sequence[Mapping[str, Any]],
    out: TextIO | None = None,
    limit: int = MAX_FAILURES_SHOWN,
) -> None:
    """Which prompts failed and why, after the gates that counted them: one line per prompt
    with its first failed check and a short reason (``ENC-003 required_signals: missing "tls
    1.2"``), the first ``limit`` prompts, then how many more the report lists."""
    out = out or sys.stdout  # looked up per call: a caller may have replaced it
    by_prompt: dict[str, list[Mapping[str, Any]]] = {}
    for failure in failures:
        by_prompt.setdefault(str(failure["prompt_id"]), []).append(failure)
    if not by_prompt:
        return
    print(f"\nfailing prompts ({len(by_prompt)}):", file=out)
    width = max(len(clean(prompt, 24)) for prompt in list(by_prompt)[:limit])
    for prompt, found in list(by_prompt.items())[:limit]:
        first = found[0]
        turn = f" turn {first['turn']}" if first.get("turn") else ""
        more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
        print(
            f"  {clean(prompt, 24).ljust(width)}{turn} {clean(first['assertion'], 30)}: "
            f"{clean(first.get('detail') or 'failed', 90)}{more}",
            file=out,
        )
    if len(by_prompt) > limit:
        print(f"  … {len(by_prompt) - limit} more in the report", file=out)


def decision_line(release: ReleaseDecision, runs: int = 1) -> str:
    """``DECISION: BLOCK (gate hallucinations 1 > 0)``: the CLI's last line, the release
    decision with the rule that set it (``over N runs`` for ``--repeat``)."""
    over = f" over {runs} runs" if runs > 1 else ""
    badge = _BADGE.get(release.decision, release.decision.upper())
    return f"DECISION{over}: {badge} ({clean(release.rule)})"


def print_waivers(waivers: Mapping[str, Any] | None, out: TextIO | None = None) -> None:
    """Waived failures are shown, not hidden; an expired waiver is an error on stderr too."""
    out = out or sys.stdout  # looked up per call: a caller may have replaced it
    if waivers is None:
        return
    applied = waivers.get("applied", [])
    if applied:
        print(f"\nwaived ({len(applied)}, not counted by the gates):", file=out)
        for item in applied:
            what = item.get("assertion") or f"claim {clean(item.get('claim'), 70)!r}"
            print(
                f"  {item['prompt_id']} turn {item['turn']} {what}: {clean(item['reason'], 60)}"
                f" (until {item['expires']})",
                file=out,
            )
    for expired in waivers.get("expired", []):
        print(f"error: waiver expired: {clean(expired)}", file=sys.stderr)


def print_pipeline_counts(
    asset_metadata: Sequence[tuple[str, Mapping[str, Any]]], out: TextIO | None = None
) -> None:
    """One line per stage that ran: what the vault, the target and the detection produced.

    The embedded / reused split is how a user sees that an unchanged vault re-embeds nothing.
    """
    out = out or sys.stdout  # looked up now, not at import: a caller may have replaced it
    meta = dict(asset_metadata)
    lines = []
    if "vault_documents" in meta and "vault_index" in meta:
        docs, index = meta["vault_documents"], meta["vault_index"]
        lines.append(
            f"vault      {docs.get('documents')} documents ({docs.get('skipped')} skipped), "
            f"{index.get('chunks')} chunks: {index.get('embedded')} embedded, "
            f"{index.get('reused')} reused"
        )
        skipped = docs.get("skipped_files") or []
        for item in skipped[:MAX_SKIPPED_SHOWN]:
            lines.append(f"  skipped  {clean(item['path'], 80)}: {clean(item['reason'])}")
        if len(skipped) > MAX_SKIPPED_SHOWN:
            lines.append(f"  skipped  ... and {len(skipped) - MAX_SKIPPED_SHOWN} more (--json)")
        for item in (docs.get("text_dropped") or [])[:MAX_SKIPPED_SHOWN]:
            lines.append(f"  warning  {clean(item['path'], 80)}: {clean(item['reason'])}")
    if "responses" in meta:
        r = meta["responses"]
        lines.append(
            f"responses  {r.get('responses')} turns, {r.get('errors')} errors, "
            f"{r.get('from_cache')} from cache"
        )
    if "verdicts" in meta:
        v = meta["verdicts"]
        lines.append(f"claims     {v.get('claims')} checked by {v.get('verifier')}")
        if v.get("verifier_stages"):
            lines.append(f"stages     {v.get('verifier_stages')}")
        if v.get("verifier_quality"):
            lines.append(f"verifier   {v.get('verifier_quality')}")
        if v.get("judge_calls"):
            lines.append(f"judge      {judge_line(v)}")
        marks = marks_line(v)
        if marks:
            lines.append(f"marks      {marks}")
        if v.get("suspect_answers"):
            lines.append(
                f"suspect    {v['suspect_answers']} answer(s) the answer-level model reads as "
                "hallucinated while no claim shows it: read them (not counted by the gates)"
            )
    if (meta.get("claims") or {}).get("capped_answers"):
        c = meta["claims"]
        lines.append(
            f"capped     {c['capped_answers']} answer(s) over {c['max_claims_per_answer']} "
            f"claims: {c['capped_claims_dropped']} claims not checked "
            "(detection.max_claims_per_answer)"
        )
    if lines:
        print("", file=out)
        for line in lines:
            print(line, file=out)


def marks_line(meta: Mapping[str, Any]) -> str:
    """``2 verdicts set by analysts' marks (1 mark no longer applies: evidence changed)``;
    "" when no mark touched the audit (suppressed false alarms are listed, never hidden)."""
    made, retired = int(meta.get("set_by_marks") or 0), int(meta.get("marks_no_longer_apply") or 0)
    return marks_phrase(made, retired)


def judge_line(meta: Mapping[str, Any]) -> str:
    """``12 calls, 5400 + 900 tokens, $0.0012`` (``n/a`` where a figure was not reported)."""

    def known(value: Any, fmt: str) -> str:
        return "n/a" if value is None else format(value, fmt)

    return (
        f"{meta.get('judge_calls')} calls, {known(meta.get('judge_prompt_tokens'), 'd')} + "
        f"{known(meta.get('judge_completion_tokens'), 'd')} tokens, "
        f"${known(meta.get('judge_cost_usd'), '.4f')}"
    )


def print_gates(gates: Iterable[GateResult], out: TextIO | None = None) -> None:
    out = out or sys.stdout  # looked up per call: a caller may have replaced it
    rows = [{"gate": g.name, "status": g.status.upper(), "detail": g.detail} for g in gates]
    print("", file=out)
    table(rows, ["gate", "status", "detail"], out)


def worst_claims(warehouse: Warehouse, audit_id: str, limit: int = 5) -> list[dict[str, Any]]:
    """The least grounded claims of an audit, each with its best evidence passage."""
    frame = warehouse.query(
        """
        SELECT v.prompt_id, v.label, v.probability, c.text AS claim,
               e.document, e.section, e.text AS evidence
        FROM verdicts v
        JOIN claims c USING (audit_id, claim_id)
        LEFT JOIN evidence e ON e.audit_id = v.audit_id AND e.claim_id = v.claim_id
             AND e.rank = 1
        WHERE v.audit_id = ?
          AND v.label IN ('stale', 'contradicted', 'unsupported', 'weakly_supported')
        ORDER BY CASE v.label WHEN 'stale' THEN 0 WHEN 'contradicted' THEN 0
                              WHEN 'unsupported' THEN 1 ELSE 2 END,
                 v.probability
        LIMIT ?
        """,
        [audit_id, limit],
    )
    return frame.to_dict("records")


def print_worst_claims(rows: Sequence[Mapping[str, Any]], out: TextIO | None = None) -> None:
    out = out or sys.stdout  # looked up per call: a caller may have replaced it
    if not rows:
        print("\nNo unsupported, contradicted or stale claims.", file=out)
        return
    print("\nWorst claims and their best evidence:", file=out)
    for row in rows:
        print(
            f"- [{row['label']}, p(supported)={row['probability']:.2f}] {row['prompt_id']}: "
            f"{clean(row['claim'], 160)}",
            file=out,
        )
        if row.get("evidence"):
            where = clean(row["document"])
            if row.get("section"):
                where += f" > {clean(row['section'], 60)}"
            quote = plain_excerpt(row["evidence"], 160)  # no Markdown markup, tables as text
            print(f"    evidence ({where}): {clean(quote)}", file=out)
