"""Imports the stages this package defines, so each registers itself (``registry.stage``)."""

from audit_pipeline.verification.stages import (  # noqa: F401
    entailment,
    mark,
    model,
    polarity,
    rewrite,
    second_reading,
    specifics,
    staleness,
    structure,
)
