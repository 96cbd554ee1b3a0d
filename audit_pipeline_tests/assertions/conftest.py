"""Fixtures for the assertion tests: the sample vault as a catalog, default settings."""

from __future__ import annotations

import pytest

from audit_pipeline.assertions import AssertionSettings, VaultCatalog
from audit_pipeline.vault.documents import scan_vault
from audit_pipeline_tests.helpers import SAMPLE_VAULT


@pytest.fixture(scope="session")
def settings() -> AssertionSettings:
    return AssertionSettings()


@pytest.fixture(scope="session")
def catalog() -> VaultCatalog:
    return VaultCatalog.from_scan(scan_vault(SAMPLE_VAULT))
