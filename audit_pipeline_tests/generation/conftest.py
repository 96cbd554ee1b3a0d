"""Fixtures for the local generation tests: the real SmolLM2 model, loaded once per process."""

from __future__ import annotations

import pytest

from audit_pipeline.generation.local_model import LocalChatModel, shared_local_model
from audit_pipeline.generation.weights_cache import default_cache_dir

MODEL = "smollm2-135m-instruct"


@pytest.fixture(scope="session")
def local_model() -> LocalChatModel:
    """The process-wide model, the same instance the litellm provider uses."""
    return shared_local_model(MODEL, default_cache_dir())
