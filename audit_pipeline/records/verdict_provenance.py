"""Where a verdict came from: stored under a key, computed against a vault state, carried over.

The warehouse loads these and the run package decides with them which verdicts an audit carries
over and which a changed document made stale.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit_pipeline.records.verdicts import Verdict


@dataclass(frozen=True)
class StoredVerdict:
    """A verdict found in the warehouse under a key, with where it was computed."""

    verdict: Verdict
    audit_id: str
    vault_state: str | None


ClaimKey = tuple[str, int, str]  # prompt id, turn, claim text


@dataclass(frozen=True)
class PriorVerdict:
    """The last verdict of a claim computed against an earlier vault state."""

    label: str
    supporting_chunk_ids: tuple[str, ...]
    vault_state: str


@dataclass(frozen=True)
class Provenance:
    """Where a verdict row comes from: its key, the vault state of its evidence and, when it
    was carried over, the audit that computed it."""

    verdict_key: str
    vault_state: str | None
    carried_from: str | None = None
