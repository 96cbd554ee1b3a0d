"""Column documentation of migration 19: failed audits, and verdicts whose evidence changed
while the audit ran (issue 33)."""

FAILURE_DOCUMENTATION: dict[str, str] = {
    "COLUMN audits.status": "running while in progress (or killed with SIGKILL: resume with "
    "--resume); finished once risk_scores ran; failed when a step failed or the run was "
    "stopped (failed_step and failure say where and why; --resume continues it).",
    "COLUMN audits.failed_step": "For a failed audit: the Dagster step that failed or was "
    "running when the run was stopped (responses, verdicts.verify_batch[0], ...); NULL "
    "otherwise and on rows written before migration 19.",
    "COLUMN audits.failure": "For a failed audit: why, in one line (the step's error, or the "
    "signal that stopped the run); NULL otherwise.",
    "COLUMN verdicts.evidence_changed": "Set when a vault document this verdict's evidence came "
    "from was edited or deleted after the audit indexed it and before it decided: the verdict "
    "was judged against text the vault no longer holds (the documents and what happened to "
    "them); NULL when the evidence was unchanged.",
}
