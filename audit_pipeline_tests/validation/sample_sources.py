"""Sources the validation tests check answers against (a helpers module: conftest holds
fixtures only)."""

BACKUP_SOURCES = [
    "Production databases take a full snapshot every day. Database transaction logs are "
    "archived continuously, which allows point-in-time recovery to any moment in the last 7 "
    "days. Object storage holding file exports and attachments is versioned, with previous "
    "versions kept for 35 days.",
    "The recovery point objective (RPO) of the Ledger module is 1 hour and the recovery time "
    "objective (RTO) is 4 hours.",
]
