"""Suite validation errors that list every problem at once.

Suites are written by hand; fixing them one error per run is slow, so the loader collects all
issues and raises them together, each pointing at file, position, prompt id and field.
"""

from __future__ import annotations

from dataclasses import dataclass

MISSING_ID = "<missing id>"


@dataclass(frozen=True)
class SuiteIssue:
    """One problem in a suite file, located precisely enough to fix without searching."""

    file: str
    position: str  # e.g. "prompts[3] (line 42)" or "line 7"
    prompt_id: str  # the prompt's id, or MISSING_ID when it has none (or cannot be read)
    field: str | None  # e.g. "expected_behavior", "conversation[1].prompt"; None = whole entry
    message: str

    def __str__(self) -> str:
        field = f", field '{self.field}'" if self.field else ""
        return f"{self.file}: {self.position}, prompt id '{self.prompt_id}'{field}: {self.message}"


class SuiteValidationError(ValueError):
    """Raised when a suite file has one or more problems; ``issues`` holds all of them."""

    def __init__(self, issues: list[SuiteIssue]) -> None:
        if not issues:
            raise ValueError("SuiteValidationError needs at least one issue")
        self.issues: tuple[SuiteIssue, ...] = tuple(issues)
        files = sorted({issue.file for issue in issues})
        count = len(issues)
        header = f"{count} problem{'s' if count != 1 else ''} in prompt suite {', '.join(files)}:"
        super().__init__("\n".join([header, *(f"  - {issue}" for issue in issues)]))


class SuiteFileError(ValueError):
    """The suite file itself cannot be read (missing, a directory, no permission): one line,
    since there is nothing inside to list."""
