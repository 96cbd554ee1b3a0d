"""The validation service, built on first use and then shared by every request.

Building it loads the embedder and the verifier (seconds), so the HTTP API answers ``/health``
and the MCP server its handshake at once, and the first validation pays for the models.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from audit_pipeline.service.engine import ValidationService


class LazyValidationService:
    """Calling it returns the one ``ValidationService`` for ``config_path`` (thread-safe)."""

    def __init__(self, config_path: Path) -> None:
        self.config_path = config_path
        self._service: ValidationService | None = None
        self._lock = threading.Lock()

    @property
    def built(self) -> bool:
        """Whether the models have loaded (a refused request never loads them)."""
        return self._service is not None

    def __call__(self) -> ValidationService:
        with self._lock:
            if self._service is None:
                from audit_pipeline.config import load_config
                from audit_pipeline.service.engine import ValidationService

                self._service = ValidationService(self.config_path, load_config(self.config_path))
            return self._service
