"""The Dagster entry point (``workspace.yaml``, ``pyproject.toml``): ``defs`` for the
configuration in ``$AUDIT_CONFIG`` or ``audit.yaml``.

A ``@dg.definitions`` function, as in Dagster's own projects: Dagster calls it when it loads the
code location, so importing this module builds nothing and cannot fail on a broken
``audit.yaml``. The CLI still imports ``audit_pipeline.defs.graph`` directly, because it builds
the graph from the file named by ``--config``.
"""

from __future__ import annotations

import dagster as dg

from audit_pipeline.defs.graph import build_definitions, default_config_path

__all__ = ["build_definitions", "default_config_path", "defs"]


@dg.definitions
def defs() -> dg.Definitions:
    return build_definitions()
