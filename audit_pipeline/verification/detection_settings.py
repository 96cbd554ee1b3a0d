"""The ``detection:`` section of audit.yaml: claim extraction, evidence and verification.

One section for three stages because they are tuned together (the claims cap, evidence top-k,
the verifier and its judge); it lives with verification, the last of the three.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

from audit_pipeline.llm.judge_settings import JudgeSettings
from audit_pipeline.verification.reader import ReaderSettings

# The checks of the default chain, in the order they name a verdict.
DEFAULT_CHECKS = (
    "specifics",
    "polarity",
    "direction",
    "modality",
    "agent",
    "condition",
    "scope",
    "rewrite",
    "entailment",
)
# The stages a chain without them is not measured for (preflight warns).
MEASURED_CORE = (*DEFAULT_CHECKS, "model")


class StageSpec(BaseModel):
    """One entry of ``detection.stages``: a stage's name and its parameters.

    In audit.yaml an entry is the name alone (``- specifics``) or the name with parameters
    (``- rewrite: {aligned_cosine: 0.7}``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    params: dict[str, JsonValue] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _short_forms(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"name": value}
        if isinstance(value, dict) and len(value) == 1 and "name" not in value:
            ((name, params),) = value.items()
            return {"name": name, "params": params or {}}
        return value


class DetectionSettings(BaseModel):
    """The ``detection:`` section of audit.yaml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    extractor: Literal["sentences", "llm"] = "sentences"
    evidence_top_k: int = Field(default=5, ge=1)
    verifier: Literal["local", "llm", "cascade"] = "local"
    # Claims the local verifier's reading decided (no check did) whose p(supported) falls in
    # this band go to the second stage: the judge, or the reader when one is configured.
    cascade_band: tuple[float, float] = (0.35, 0.65)
    # The verifier chain, in order, with each stage's parameters (``audit-pipeline verifier``
    # lists what it is); None: the chain ``verifier`` names (the checks, the learned model,
    # the judge or reader for a cascade, staleness, the glossary and analysts' marks).
    stages: tuple[StageSpec, ...] | None = None
    # The key ``stages`` replaced; named only so an old audit.yaml is told so.
    checks: None = Field(default=None, exclude=True, repr=False)
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
    # Use the learned model `audit-pipeline calibrate` accepted (verifier/calibrated.json next
    # to the warehouse: it was better on held-out marks) when there is one and the chain's
    # model stage names no model file of its own; false: the configured (shipped) model.
    calibrated: bool = True

    @field_validator("checks", mode="before")
    @classmethod
    def _checks_replaced(cls, value: Any) -> None:
        if value is not None:
            raise ValueError(
                "replaced by detection.stages, the whole verifier chain in order (e.g. "
                "stages: [specifics, polarity, rewrite, entailment, model, staleness, "
                "glossary, mark]); `audit-pipeline verifier` lists the configured one"
            )

    @model_validator(mode="after")
    def _band(self) -> DetectionSettings:
        low, high = self.cascade_band
        if self.stages is not None:
            self._check_stages(self.stages)
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError("cascade_band must satisfy 0 <= low <= high <= 1")
        if self.reader is not None and self.verifier == "llm":
            raise ValueError(
                "reader: the llm verifier reads every claim with the judge; use verifier: local "
                "or cascade to send the local verifier's uncertain claims to the reader"
            )
        return self

    def _check_stages(self, stages: tuple[StageSpec, ...]) -> None:
        from audit_pipeline.verification.stages.registry import StageError, check_spec

        overridden = {"verifier", "cascade_band"} & self.model_fields_set
        if overridden:
            raise ValueError(
                f"stages: the chain replaces {' and '.join(sorted(overridden))}; put a judge "
                "stage with its band in the chain instead (- judge: {band: [0.35, 0.65]})"
            )
        names = [s.name for s in stages]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"stages: each stage once, repeated: {', '.join(repeated)}")
        for spec in stages:
            try:
                check_spec(spec.name, spec.params)
            except StageError as error:
                raise ValueError(f"stages: {error}") from None
        if self.reader is not None and "reader" not in names:
            raise ValueError("reader: detection.reader is set but detection.stages has no reader")
        if "reader" in names and self.reader is None:
            raise ValueError("stages: the reader stage needs detection.reader (kind and path)")

    def chain(self) -> tuple[StageSpec, ...]:
        """The verifier chain: ``stages`` as configured, or the one ``verifier`` names."""
        if self.stages is not None:
            return self.stages
        band = {"band": list(self.cascade_band)}
        tail = (StageSpec(name="staleness"), StageSpec(name="glossary"), StageSpec(name="mark"))
        if self.verifier == "llm" and self.reader is None:
            return (StageSpec(name="judge", params={"claims": "all"}), *tail)
        chain = [StageSpec(name=name) for name in (*DEFAULT_CHECKS, "model")]
        if self.reader is not None:
            chain.append(StageSpec(name="reader", params=band))
        elif self.verifier == "cascade":
            chain.append(StageSpec(name="judge", params=band))
        return (*chain, *tail)

    def with_model_file(self, path: Path) -> DetectionSettings:
        """These settings with the chain's ``model`` stage reading ``path`` (unless it names a
        model file already); the chain is then written out in ``stages``."""
        specs = []
        for spec in self.chain():
            if spec.name == "model" and "model" not in spec.params:
                spec = StageSpec(name="model", params={**spec.params, "model": str(path)})
            specs.append(spec.model_dump(mode="json"))
        data = self.model_dump(
            mode="json", exclude={"verifier", "cascade_band", "checks", "stages"}
        )
        return DetectionSettings.model_validate({**data, "stages": specs})

    def chain_name(self) -> str:
        """What verdicts record as their verifier: ``local``, ``cascade`` or ``llm_judge``."""
        names = {spec.name for spec in self.chain()}
        if "model" not in names and "judge" in names:
            return "llm_judge"
        return "cascade" if names & {"judge", "reader"} else "local"
