"""Prometheus counters for an audit, computed from the warehouse.

The pipeline runs as separate Dagster steps (separate processes in production), so counters
are not kept in memory: every fact already lands in DuckDB (responses, claims, verdicts,
``service_stats``), and this module renders them in the Prometheus text format. The file is
meant for node_exporter's textfile collector or any scraper; the same text is shown as asset
metadata.
"""

from __future__ import annotations

from pathlib import Path

from prometheus_client import CollectorRegistry, Gauge, generate_latest, write_to_textfile

from audit_pipeline.assertions.assertion_settings import AssertionSettings
from audit_pipeline.assertions.behavior import is_fallback, is_refusal
from audit_pipeline.warehouse.audit_tables import load_response_records
from audit_pipeline.warehouse.store import Warehouse, or_none

BREAKER_STATES = {"closed": 0, "half_open": 1, "open": 2}
_PREFIX = "audit_pipeline"


def audit_registry(
    warehouse: Warehouse, audit_id: str, settings: AssertionSettings
) -> CollectorRegistry:
    """A registry holding one audit's figures, labelled by target and audit id."""
    audit = warehouse.query(
        "SELECT target, decision, risk FROM audits WHERE audit_id = ?", [audit_id]
    )
    if audit.empty:
        raise LookupError(f"no audit {audit_id!r}")
    target = audit.iloc[0]["target"]
    labels = {"target": target, "audit_id": audit_id}
    registry = CollectorRegistry()

    def gauge(name: str, help_text: str, extra: tuple[str, ...] = ()) -> Gauge:
        return Gauge(f"{_PREFIX}_{name}", help_text, [*labels, *extra], registry=registry)

    decision = or_none(audit.iloc[0]["decision"]) or "none"
    gauge("audits", "Audits recorded (1 per audit id) by decision.", ("decision",)).labels(
        **labels, decision=decision
    ).set(1)
    risk = or_none(audit.iloc[0]["risk"])
    gauge("audit_risk", "Audit risk (NaN when no claim was verifiable).").labels(**labels).set(
        float("nan") if risk is None else float(risk)
    )

    records = load_response_records(warehouse, audit_id)
    responses = gauge("responses", "Target responses by status.", ("status",))
    abstentions = gauge("abstentions", "Answers that abstained, by reason.", ("reason",))
    counts = {"ok": 0, "error": 0, "cached": 0}
    reasons = {"error": 0, "fallback": 0, "refusal": 0}
    for record in records:
        if record.error:
            counts["error"] += 1
            reasons["error"] += 1
            continue
        counts["cached" if record.from_cache else "ok"] += 1
        if is_fallback(record.response, settings, record.citations):
            reasons["fallback"] += 1
        elif is_refusal(record.response, settings):
            reasons["refusal"] += 1
    for status, value in counts.items():
        responses.labels(**labels, status=status).set(value)
    for reason, value in reasons.items():
        abstentions.labels(**labels, reason=reason).set(value)

    claims = warehouse.scalar("SELECT count(*) FROM claims WHERE audit_id = ?", [audit_id])
    gauge("claims", "Claims extracted from the answers.").labels(**labels).set(claims or 0)
    verdicts = gauge("verdicts", "Claim verdicts by label.", ("label",))
    for label in ("supported", "weakly_supported", "unsupported", "contradicted", "unverifiable"):
        verdicts.labels(**labels, label=label).set(0)
    for row in warehouse.query(
        "SELECT label, count(*) AS n FROM verdicts WHERE audit_id = ? GROUP BY label", [audit_id]
    ).itertuples(index=False):
        verdicts.labels(**labels, label=row.label).set(row.n)

    service = ("stage", "service")
    requests = gauge("service_requests", "Calls to a model service.", service)
    failures = gauge("service_failures", "Failed calls to a model service.", service)
    fallbacks = gauge("service_fallbacks", "Calls served by a fallback path.", service)
    breaker = gauge(
        "circuit_breaker_state",
        "Breaker state at the end of the stage: 0 closed, 1 half-open, 2 open.",
        service,
    )
    for row in warehouse.query(
        "SELECT * FROM service_stats WHERE audit_id = ?", [audit_id]
    ).itertuples(index=False):
        keys = {**labels, "stage": row.stage, "service": row.service}
        requests.labels(**keys).set(row.requests)
        failures.labels(**keys).set(row.failures)
        fallbacks.labels(**keys).set(row.fallbacks)
        state = or_none(row.state)
        if state is not None:
            breaker.labels(**keys).set(BREAKER_STATES.get(state, -1))
    return registry


def render(registry: CollectorRegistry) -> str:
    return generate_latest(registry).decode()


def write_metrics(registry: CollectorRegistry, path: Path) -> Path:
    """Write atomically (``write_to_textfile`` renames a temp file into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_to_textfile(str(path), registry)
    return path
