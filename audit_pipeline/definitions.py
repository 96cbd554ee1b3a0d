"""The Dagster entry point (``workspace.yaml``, ``pyproject.toml``): ``defs`` for the
configuration in ``$AUDIT_CONFIG`` or ``audit.yaml``. Built on import, which is what Dagster
wants and what the CLI must avoid: the CLI imports ``audit_pipeline.defs.graph`` instead."""

from __future__ import annotations

from audit_pipeline.defs.graph import build_definitions, default_config_path

__all__ = ["build_definitions", "default_config_path", "defs"]

defs = build_definitions()
