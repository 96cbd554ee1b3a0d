"""The ``evaluation:`` section of audit.yaml: the golden set and the retrieval regression gate."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

GATED_METRICS = ("precision", "hit_precision", "recall", "mrr")


class RetrievalGateSettings(BaseModel):
    """Largest tolerated drop of each figure against a baseline, as a fraction (0.05 = five
    points); ``null`` leaves that figure ungated. Precision is gated by default because it is
    what a threshold change silently costs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    precision: float | None = Field(default=0.05, ge=0.0, le=1.0)
    hit_precision: float | None = Field(default=None, ge=0.0, le=1.0)
    recall: float | None = Field(default=None, ge=0.0, le=1.0)
    mrr: float | None = Field(default=None, ge=0.0, le=1.0)

    def limits(self) -> dict[str, float]:
        return {name: value for name in GATED_METRICS if (value := getattr(self, name)) is not None}


class EvaluationSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    golden_set: Path = Path("data/evaluation/golden_queries.jsonl")
    # Figures are computed on the first k hits (precision@k, recall@k); keep it fixed so
    # evaluations of different retrieval settings stay comparable.
    k: int = Field(default=5, ge=1)
    # The expected_doc_ids of the configured suites' prompts count as golden queries too.
    include_suites: bool = True
    max_drop: RetrievalGateSettings = RetrievalGateSettings()
