"""The verifier protocol: what every verifier (local, judge, cascade, reader) implements.

The verdict record itself lives in ``records.verdicts``, so storage and scoring read verdicts
without importing this stage.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from audit_pipeline.records.claims import Claim
from audit_pipeline.records.evidence import EvidencePassage
from audit_pipeline.records.verdicts import Verdict


@runtime_checkable
class Verifier(Protocol):
    """Judges claims against their evidence, in batches so embeddings are computed together.

    ``evidence[i]`` is the evidence for ``claims[i]``; the result has one verdict per claim, in
    order.
    """

    name: str
    version: str

    def verify(
        self, claims: Sequence[Claim], evidence: Sequence[Sequence[EvidencePassage]]
    ) -> list[Verdict]: ...
