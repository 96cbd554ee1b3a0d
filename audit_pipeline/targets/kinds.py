"""From a target's validated settings to the target object: one class per ``type:`` kind.

Apart from the settings (``targets/target_config.py``) because each target module imports its own
settings class; the settings importing the targets back would be an import circle.
"""

from __future__ import annotations

from typing import Any

from audit_pipeline.targets.base import Target, TargetConfigError
from audit_pipeline.targets.target_config import (
    HttpTargetConfig,
    LiteLLMTargetConfig,
    ReplayTargetConfig,
    TargetConfig,
    VaultBotTargetConfig,
)


def build_target(name: str, config: TargetConfig, **deps: Any) -> Target:
    """Construct the target ``config`` describes.

    ``deps`` carries run-time collaborators: ``retriever`` for ``vault_bot``, ``base_dir`` to
    resolve a relative replay path. Dependencies a kind does not use are ignored, so a caller
    may pass the same ones for every target. Environment variables are read here, so a missing
    key fails before the first request.
    """
    if isinstance(config, LiteLLMTargetConfig):
        from audit_pipeline.targets.litellm_target import LiteLLMTarget  # slow import: lazy

        return LiteLLMTarget(name, config)
    if isinstance(config, HttpTargetConfig):
        from audit_pipeline.targets.http_target import HttpTarget

        return HttpTarget(name, config)
    if isinstance(config, ReplayTargetConfig):
        from audit_pipeline.targets.replay import ReplayTarget

        return ReplayTarget(name, config, base_dir=deps.get("base_dir"))
    if isinstance(config, VaultBotTargetConfig):
        from audit_pipeline.targets.vault_bot import VaultBotTarget

        target = VaultBotTarget(name=name, config=config, **deps)
        if not isinstance(target, Target):
            raise TargetConfigError(f"target {name!r}: VaultBotTarget does not meet Target")
        return target
    raise TargetConfigError(f"target {name!r}: unsupported config {type(config).__name__}")
