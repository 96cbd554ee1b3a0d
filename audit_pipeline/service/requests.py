"""What a request may hold, declared once for the HTTP API and the MCP tools.

The HTTP bodies are these models and the MCP tools' parameters are these fields, so a
question too long, a source too many or an unknown argument (``admin: true``) is refused on
both surfaces by the same rule, in the same words, before any model loads.
``check_validation`` adds what a type cannot say: a blank question and invalid characters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from audit_pipeline.service.errors import FieldProblem, InvalidFields, check_name, check_text

MAX_TEXT = 100_000  # characters of a question, answer, source or query
MAX_SOURCES = 50
MAX_K = 50

Question = Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
Answer = Annotated[str, Field(max_length=MAX_TEXT)]
Sources = Annotated[
    list[Annotated[str, Field(max_length=MAX_TEXT)]] | None, Field(max_length=MAX_SOURCES)
]
Query = Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
K = Annotated[int, Field(ge=1, le=MAX_K)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ValidateRequest(_Request):
    question: Question
    answer: Answer
    sources: Sources = None


class SearchRequest(_Request):
    query: Query
    k: K = 5


class EvaluateRequest(_Request):
    config_path: str | None = Field(default=None, max_length=4096)
    target: str | None = Field(default=None, max_length=200)
    suite: str | None = Field(default=None, max_length=200)


def check_validation(question: str, answer: str, sources: Sequence[str] | None) -> None:
    """What the field types leave open; raises ``InvalidFields`` or ``InvalidCharacters``."""
    if not question.strip():
        raise InvalidFields([FieldProblem(("question",), "must not be blank")])
    check_text("question", question)
    check_text("answer", answer)
    for number, source in enumerate(sources or ()):
        check_text(f"sources.{number}", source)


def check_search(query: str) -> None:
    if not query.strip():
        raise InvalidFields([FieldProblem(("query",), "must not be blank")])
    check_text("query", query)


def check_evaluate(request: EvaluateRequest) -> None:
    for field in ("config_path", "target", "suite"):
        value = getattr(request, field)
        if value is not None:
            check_name(field, value)
