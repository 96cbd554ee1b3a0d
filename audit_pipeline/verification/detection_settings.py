"""The ``detection:`` section of audit.yaml: claim extraction, evidence and verification.

One section for three stages because they are tuned together (the claims cap, evidence top-k,
the verifier and its judge); it lives with verification, the last of the three.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from audit_pipeline.llm.judge_settings import JudgeSettings
from audit_pipeline.verification.reader import ReaderSettings

# The local verifier's checks (``verification/checks/``), in the order they name a verdict.
CheckName = Literal["specifics", "polarity", "rewrite"]


class DetectionSettings(BaseModel):
    """The ``detection:`` section of audit.yaml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    extractor: Literal["sentences", "llm"] = "sentences"
    evidence_top_k: int = Field(default=5, ge=1)
    verifier: Literal["local", "llm", "cascade"] = "local"
    # Claims the local verifier's reading decided (no check did) whose p(supported) falls in
    # this band go to the second stage: the judge, or the reader when one is configured.
    cascade_band: tuple[float, float] = (0.35, 0.65)
    # The checks that decide a claim before the learned model reads it; leave one out to see
    # what the model alone makes of the claims it decided (each verdict names its check).
    checks: tuple[CheckName, ...] = ("specifics", "polarity", "rewrite")
    judge: JudgeSettings = JudgeSettings()
    # Claims checked per answer (the first ones in the text); the rest are counted as capped.
    max_claims_per_answer: int = Field(default=50, ge=1)
    # Evidence and verification split into this many batches of prompts, which Dagster runs as
    # parallel steps (processes, or pods on Kubernetes). How the work runs, not what it finds:
    # it is left out of the verifier identity, so verdicts carry over between batch counts.
    batches: int = Field(default=1, ge=1, le=256)
    # A model read from a downloaded folder (verification/reader.py); None: no reader. With
    # one, the local and cascade verifiers send their uncertain claims to it, not to a judge.
    reader: ReaderSettings | None = None

    @model_validator(mode="after")
    def _band(self) -> DetectionSettings:
        low, high = self.cascade_band
        if len(set(self.checks)) != len(self.checks):
            raise ValueError(f"checks: each check once, got {list(self.checks)}")
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError("cascade_band must satisfy 0 <= low <= high <= 1")
        if self.reader is not None and self.verifier == "llm":
            raise ValueError(
                "reader: the llm verifier reads every claim with the judge; use verifier: local "
                "or cascade to send the local verifier's uncertain claims to the reader"
            )
        return self
