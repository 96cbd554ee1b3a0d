"""The validator the reference bot's guardrail judges its own answers with.

Built here, above the targets, and handed to the vault bot: a target may not import the
claims, evidence and verification stages that judge it (the import contracts in
``pyproject.toml``). Same extractor and local verifier chain as an audit, so what the guardrail
lets through is what the audit would accept.
"""

from __future__ import annotations

from audit_pipeline.claims.extractor import SentenceClaimExtractor
from audit_pipeline.embedding import Embedder
from audit_pipeline.index.retrieval import HybridRetriever
from audit_pipeline.targets.target_config import TargetConfig, VaultBotTargetConfig
from audit_pipeline.validation.engine import AnswerValidator
from audit_pipeline.validation.settings import ValidationSettings
from audit_pipeline.verification.configured import local_chain


def guardrail_validator(
    config: TargetConfig, embedder: Embedder, vault: HybridRetriever | None = None
) -> AnswerValidator | None:
    """An offline ``AnswerValidator`` over ``embedder`` (the vault index's) for a vault bot
    whose guardrail is on (``self_correct``); None for every other target. With ``vault`` the
    guardrail finds evidence as the audit will (the answer's context, then the vault and the
    look-ups of its names, identifiers and dates)."""
    if not (isinstance(config, VaultBotTargetConfig) and config.self_correct):
        return None
    return AnswerValidator(
        embedder=embedder,
        extractor=SentenceClaimExtractor([config.fallback_sentence]),
        verifier=local_chain(embedder),
        settings=ValidationSettings(),
        retriever=vault,
    )
