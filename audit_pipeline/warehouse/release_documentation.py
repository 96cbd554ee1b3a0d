"""Column documentation of migration 16: the release decision and the rule that set it."""

RELEASE_DOCUMENTATION: dict[str, str] = {
    "COLUMN audits.decision": "The release decision: the worst of the audit's gates "
    "(deploy < warn < block < incomplete): the risk zone (risk gate), completeness "
    "(incomplete, or block with scoring.on_incomplete: block), hallucinations, citation "
    "errors, pass rate, fallback errors and waivers. The CLI's last line, its exit code, "
    "--json, the report, POST /evaluate and the Dagster check release_decision print the same "
    "value. Before migration 16: the risk zone, or incomplete.",
    "COLUMN audits.decision_rule": "What set the decision, as a reader sees it after "
    "'<decision>: ' (gate hallucinations 1 > 0; risk 0.312 > 0.25 (block zone); 53 of 65 turns "
    "got no answer (82% > 20%)); NULL on rows written before migration 16.",
    "COLUMN risk_scores.hallucination_rate": "Share of the answered turns that are "
    "hallucinations by the hallucinations gate's definition: a claim unsupported, contradicted "
    "or stale, or a failed must_not_appear / must_not_assert. Before migration 16 the claims "
    "only, so a forbidden string counted in the gate but not in the rate.",
}
