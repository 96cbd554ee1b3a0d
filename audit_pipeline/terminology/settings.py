"""Where definitions come from: ``vault.glossary`` (a file) or ``vault.skosmos`` (a server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from audit_pipeline.terminology.checker import TerminologyChecker
from audit_pipeline.terminology.glossary import load_glossary
from audit_pipeline.terminology.lookup import GlossarySource


class SkosmosSettings(BaseModel):
    """A SKOSMOS vocabulary; the seed's bounds: 200-500 ms per lookup, 5-30 min cache TTL."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str
    vocabulary: str = Field(min_length=1)
    lang: str = "en"
    timeout_s: float = Field(default=0.5, gt=0, le=30)
    cache_size: int = Field(default=1000, ge=1)
    cache_ttl_s: float = Field(default=900.0, ge=0)

    @field_validator("url")
    @classmethod
    def _http(cls, url: str) -> str:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"{url!r} is not an http(s) URL")
        return url


def build_terminology(
    glossary: Path | None, skosmos: SkosmosSettings | None, **client: Any
) -> TerminologyChecker | None:
    """The checker for the configured source, or None when neither is configured. ``glossary``
    must already be resolved; a malformed file raises ``GlossaryError`` naming the entry."""
    if skosmos is not None:
        from audit_pipeline.terminology.skosmos import SkosmosSource  # httpx client: lazy

        return TerminologyChecker(
            SkosmosSource(
                skosmos.url,
                skosmos.vocabulary,
                lang=skosmos.lang,
                timeout_s=skosmos.timeout_s,
                cache_size=skosmos.cache_size,
                cache_ttl_s=skosmos.cache_ttl_s,
                **client,
            )
        )
    if glossary is not None:
        return TerminologyChecker(GlossarySource(load_glossary(glossary)))
    return None
