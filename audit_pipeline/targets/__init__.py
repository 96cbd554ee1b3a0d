"""Targets: the systems under audit (litellm models, HTTP chatbots, recorded answers, the
built-in vault bot) behind one protocol, and the runner that sends a suite to them."""

from audit_pipeline.records.responses import Citation, ResponseRecord
from audit_pipeline.targets.base import (
    BatchTarget,
    ChatTurn,
    RetryableTargetError,
    Target,
    TargetConfigError,
    TargetError,
    TargetReply,
    TargetRequest,
    close_target,
)
from audit_pipeline.targets.cache import ResponseCache
from audit_pipeline.targets.cited_sources import citation_from_label, parse_citations
from audit_pipeline.targets.kinds import build_target
from audit_pipeline.targets.suite_runner import run_suite
from audit_pipeline.targets.target_config import (
    HttpTargetConfig,
    LiteLLMTargetConfig,
    ReplayTargetConfig,
    TargetConfig,
    VaultBotTargetConfig,
    parse_target_config,
)

__all__ = [
    "BatchTarget",
    "ChatTurn",
    "Citation",
    "HttpTargetConfig",
    "LiteLLMTargetConfig",
    "ReplayTargetConfig",
    "ResponseCache",
    "ResponseRecord",
    "RetryableTargetError",
    "Target",
    "TargetConfig",
    "TargetConfigError",
    "TargetError",
    "TargetReply",
    "TargetRequest",
    "VaultBotTargetConfig",
    "build_target",
    "citation_from_label",
    "close_target",
    "parse_citations",
    "parse_target_config",
    "run_suite",
]
