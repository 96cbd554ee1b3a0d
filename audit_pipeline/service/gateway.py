"""What both surfaces call: the request checks, then the bounded pool, then the models.

The HTTP API and the MCP server differ only in how a request arrives and how an error goes
back; everything between (the checks that need no model, the worker pool with its queue and
time budget, the one validation service) is here, so the two cannot drift apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audit_pipeline.config import ServiceSettings
from audit_pipeline.service.lazy_service import LazyValidationService
from audit_pipeline.service.pool import WorkerPool
from audit_pipeline.service.requests import (
    SearchRequest,
    ValidateRequest,
    check_search,
    check_validation,
)


class ValidationGateway:
    """Validations and vault searches for one configuration, boundedly concurrent."""

    def __init__(self, config_path: Path, settings: ServiceSettings) -> None:
        self.service = LazyValidationService(config_path)
        self.pool = WorkerPool(settings.workers, settings.queue, settings.time_budget_s)

    async def validate(self, request: ValidateRequest) -> dict[str, Any]:
        """The validation, once recorded (its audit id is in the answer)."""
        check_validation(request.question, request.answer, request.sources)
        deadline = self.pool.deadline()
        result, recorded = await self.pool.run(
            lambda budget: self.service().validate(
                request.question, request.answer, request.sources, budget
            ),
            deadline,
        )
        # The worker is free for the next validation while the writer records this one.
        return {"audit_id": await self.pool.wait(recorded, deadline), **result.to_dict()}

    async def search(self, request: SearchRequest) -> list[dict[str, Any]]:
        check_search(request.query)
        return await self.pool.run(lambda _: self.service().search(request.query, request.k))
