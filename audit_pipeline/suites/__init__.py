"""Prompt suites: the questions an audit asks and what each answer must (not) contain."""

from audit_pipeline.suites.errors import SuiteIssue, SuiteValidationError
from audit_pipeline.suites.loader import load_suite, parse_suite
from audit_pipeline.suites.prompt_suite import (
    EXPECTED_BEHAVIORS,
    ExpectedBehavior,
    PromptSuite,
    SuitePrompt,
    SuiteTurn,
)

__all__ = [
    "EXPECTED_BEHAVIORS",
    "ExpectedBehavior",
    "PromptSuite",
    "SuiteIssue",
    "SuitePrompt",
    "SuiteTurn",
    "SuiteValidationError",
    "load_suite",
    "parse_suite",
]
