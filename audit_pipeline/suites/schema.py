"""Suite entries as pydantic models, and their errors as ``SuiteIssue`` records.

The models state the rules (strict types, spellings, cross-field rules); pydantic collects every
failure of an entry, and each is reworded for a suite author with the file, prompt id and field
path. Fields are accepted in snake_case and in the camelCase of the original Shield Bot harness,
so its eval files load unchanged. A valid entry becomes the frozen ``SuitePrompt`` used
downstream, whose canonical form (and hash) does not depend on the spelling.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import replace
from functools import cache
from typing import Annotated, Any, Self

from pydantic import (
    AfterValidator,
    AliasChoices,
    AliasGenerator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import ErrorDetails, PydanticCustomError

from audit_pipeline.suites.errors import MISSING_ID, SuiteIssue
from audit_pipeline.suites.prompt_suite import (
    DEFAULT_MIN_SIMILARITY,
    ExpectedBehavior,
    PinTolerance,
    SuitePrompt,
    SuiteTurn,
    split_signal_group,
)

BEHAVIOR_ALIASES = {"security_clearance_fallback": "fallback"}
Problem = tuple[str, str]  # (field path inside the model, message)


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank", "must not be empty")
    return value


def _alternatives_given(group: str) -> str:
    # "a|" would make the group match every answer: the empty alternative is always found.
    if not all(split_signal_group(group)):
        raise PydanticCustomError(
            "empty_alternative",
            "signal group {group} has an empty alternative (groups look like 'a|b|c')",
            {"group": repr(group)},
        )
    return group


Text = Annotated[str, AfterValidator(_not_blank)]
SignalGroup = Annotated[Text, AfterValidator(_alternatives_given)]
Behavior = Annotated[
    ExpectedBehavior,
    BeforeValidator(lambda v: BEHAVIOR_ALIASES.get(v, v) if isinstance(v, str) else v),
]


class _Fields(BaseModel):
    """Strict fields (a number is not a string, a string is not a list), each also accepted
    under its camelCase name; errors are located by field name, not by the spelling used."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        loc_by_alias=False,
        alias_generator=AliasGenerator(
            validation_alias=lambda name: AliasChoices(name, to_camel(name))
        ),
    )

    @model_validator(mode="before")
    @classmethod
    def _null_is_absent(cls, data: Any) -> Any:
        """YAML writes an optional field left empty as null; a required one keeps its null, so
        ``prompt:`` with no text is reported as such instead of as missing."""
        if not isinstance(data, Mapping):
            return data
        names = spellings(cls)
        optional = {key for key, name in names.items() if not cls.model_fields[name].is_required()}
        return {
            key: value for key, value in data.items() if value is not None or key not in optional
        }

    @model_validator(mode="after")
    def _cross_field_rules(self) -> Self:
        """All broken cross-field rules in one error, whose context lists them by field."""
        problems = self._problems()
        if problems:
            raise PydanticCustomError("cross_field", "cross-field rules", {"problems": problems})
        return self

    def _problems(self) -> list[Problem]:
        return []


class Expectations(_Fields):
    """A question and what the answer must (not) do: a single prompt, or one turn."""

    prompt: Text
    expected_behavior: Behavior | None = None
    required_signals: list[SignalGroup] = []
    must_not_appear: list[Text] = []
    must_not_assert: list[Text] = []
    required_citation_source: str | None = None
    citation_must_contain: list[Text] = []
    pinned_response: Text | None = None
    pinned_tolerance: PinTolerance = "exact"
    pinned_min_similarity: float = Field(DEFAULT_MIN_SIMILARITY, gt=0, le=1)

    def _problems(self) -> list[Problem]:
        given = self.model_fields_set
        if self.pinned_response is None:
            pin_options = ("pinned_tolerance", "pinned_min_similarity")
            return [(name, "needs a pinned_response") for name in pin_options if name in given]
        if "pinned_min_similarity" in given and self.pinned_tolerance != "semantic":
            return [("pinned_min_similarity", "only applies to pinned_tolerance: semantic")]
        return []

    def suite_turn(self) -> SuiteTurn:
        return SuiteTurn(
            prompt=self.prompt,
            expected_behavior=self.expected_behavior,
            required_signals=tuple(self.required_signals),
            must_not_appear=tuple(self.must_not_appear),
            required_citation_source=self.required_citation_source,
            citation_must_contain=tuple(self.citation_must_contain),
            must_not_assert=tuple(self.must_not_assert),
            pinned_response=self.pinned_response,
            pinned_tolerance=self.pinned_tolerance,
            pinned_min_similarity=self.pinned_min_similarity,
        )


class Turn(Expectations):
    """One conversation turn; the seed's ``assertCitation`` / ``assertFallback`` flags are
    another way to give ``expected_behavior``."""

    prompt: Text = Field(validation_alias=AliasChoices("prompt", "user"))
    no_agreement: bool = Field(
        False, validation_alias=AliasChoices("no_agreement", "assertNoAgreement")
    )
    assert_citation: bool = False
    assert_fallback: bool = False

    def _behaviors(self) -> dict[str, ExpectedBehavior]:
        """Every way this turn states a behaviour, by the field that states it."""
        given: dict[str, ExpectedBehavior | None] = {
            "expected_behavior": self.expected_behavior,
            "assert_citation": "answer_with_citation" if self.assert_citation else None,
            "assert_fallback": "fallback" if self.assert_fallback else None,
        }
        return {name: behavior for name, behavior in given.items() if behavior is not None}

    def _problems(self) -> list[Problem]:
        stated = self._behaviors()
        if len(set(stated.values())) > 1:
            conflict = f"conflicting behaviours given by {' and '.join(stated)}"
            return [*super()._problems(), ("expected_behavior", conflict)]
        return super()._problems()

    def suite_turn(self) -> SuiteTurn:
        behavior = next(iter(self._behaviors().values()), None)
        turn = super().suite_turn()
        return replace(turn, expected_behavior=behavior, no_agreement=self.no_agreement)


class _Entry(_Fields):
    id: Text
    category: Text
    expected_doc_ids: list[Text] = []
    notes: str | None = None


class SinglePrompt(Expectations, _Entry):
    """An entry with one ``prompt`` and its expectations."""


class Conversation(_Entry):
    """An entry with a ``conversation``: the expectations are given per turn."""

    conversation: list[Turn] = Field(min_length=1)


def parse_entry(data: Any, file: str, position: str) -> tuple[SuitePrompt | None, list[SuiteIssue]]:
    """Convert one raw entry to a ``SuitePrompt``; None plus every issue when anything is wrong.

    The form is chosen by the ``conversation`` key, so a conversation's misplaced prompt or
    expectations are reported together with its other problems.
    """
    raw_id = data.get("id") if isinstance(data, Mapping) else None
    has_id = isinstance(raw_id, str | int | float) and not isinstance(raw_id, bool)
    prompt_id = str(raw_id) if has_id and str(raw_id) else MISSING_ID
    problems = list(_repeated_keys(data, ()))
    is_conversation = isinstance(data, Mapping) and "conversation" in data
    model: type[SinglePrompt | Conversation] = Conversation if is_conversation else SinglePrompt
    entry: SinglePrompt | Conversation | None = None
    try:
        entry = model.model_validate(data)
    except ValidationError as error:
        for details in error.errors(include_url=False):
            problems += _explain(details, data, model)
    if problems or entry is None:
        unique = dict.fromkeys(problems)  # two spellings of a misplaced field: one issue
        return None, [SuiteIssue(file, position, prompt_id, f, m) for f, m in unique]
    turns = entry.conversation if isinstance(entry, Conversation) else [entry]
    prompt = SuitePrompt(
        id=entry.id,
        category=entry.category,
        turns=tuple(turn.suite_turn() for turn in turns),
        is_conversation=isinstance(entry, Conversation),
        expected_doc_ids=tuple(entry.expected_doc_ids),
        notes=entry.notes,
    )
    return prompt, []


def _explain(error: ErrorDetails, data: Any, model: type[_Entry]) -> list[tuple[str | None, str]]:
    """One pydantic error as (field path, message) pairs, worded for a suite author."""
    loc, kind, value = error["loc"], error["type"], error.get("input")
    ctx = error.get("ctx", {})
    field = loc[-1] if loc else None
    if kind == "cross_field":
        return [(_path((*loc, name)), message) for name, message in ctx["problems"]]
    if kind == "extra_forbidden":
        return [_unknown_field(loc, data, model)]
    if kind == "invalid_key":
        return [(_path((*loc[:-1], repr(field))), "field names must be strings")]
    if kind == "model_type":
        message = f"a {'turn' if loc else 'prompt'} must be a mapping of fields"
        return [(_path(loc), f"{message}, got {_type_name(value)}")]
    if field == "conversation" and kind in ("list_type", "too_short"):
        return [("conversation", "must be a non-empty list of turns")]
    if kind == "missing":
        hint = ""
        if field == "prompt":
            hint = " (camelCase form: 'user')" if len(loc) > 1 else " (or give a 'conversation')"
        return [(_path(loc), f"required field missing{hint}")]
    if kind in ("float_type", "greater_than", "less_than_equal"):  # pinned_min_similarity
        return [(_path(loc), "must be a number in (0, 1]")]
    if kind == "literal_error":
        return [(_path(loc), f"{value!r} is not one of: {ctx['expected']}")]
    if kind in _EXPECTED:
        hint = " (quote it in YAML)" if loc == ("id",) else ""
        return [(_path(loc), f"must be {_EXPECTED[kind]}, got {_type_name(value)}{hint}")]
    # Our own messages; any other pydantic one reads "Input should be ...".
    return [(_path(loc), error["msg"].replace("Input should be", "must be"))]


_EXPECTED = {
    "string_type": "a string",
    "list_type": "a list of strings",
    "bool_type": "true or false",
}


def _unknown_field(
    loc: tuple[str | int, ...], data: Any, model: type[_Entry]
) -> tuple[str | None, str]:
    """A key no field takes: a second spelling, a single prompt's field in a conversation, or
    a typo (with the closest spelling, as a hint)."""
    key, parent = str(loc[-1]), data
    for part in loc[:-1]:
        parent = parent[part]
    nested = len(loc) > 1
    names = spellings(Turn if nested else model)
    if key in names:  # pydantic took another spelling of the same field
        name = names[key]
        both = [k for k in parent if isinstance(k, str) and names.get(k) == name]
        return _path((*loc[:-1], name)), f"given twice, as {' and '.join(map(repr, both))}"
    single = spellings(SinglePrompt)
    if not nested and key in single:  # in a Conversation
        name = single[key]
        if name == "prompt":
            return "prompt", "give either 'prompt' or 'conversation', not both"
        return name, "with 'conversation', expectations belong in each turn"
    known = list(names) if nested else [*single, *spellings(Conversation)]
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.75)
    return _path(loc), "unknown field" + (f" (did you mean '{close[0]}'?)" if close else "")


@cache
def spellings(model: type[BaseModel]) -> dict[str, str]:
    """Every accepted spelling of the model's fields -> the field's name."""
    out: dict[str, str] = {}
    for name, info in model.model_fields.items():
        alias = info.validation_alias
        choices = alias.choices if isinstance(alias, AliasChoices) else [name]
        out.update({choice: name for choice in choices if isinstance(choice, str)})
    return out


def _repeated_keys(data: Any, loc: tuple[Any, ...]) -> Iterator[tuple[str | None, str]]:
    """Keys written twice in one mapping, noted by the loader: the parsed dict kept only one."""
    if isinstance(data, Mapping):
        for key in getattr(data, "duplicates", ()):
            yield _path((*loc, key)), "field given more than once in the same entry"
        items: Any = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    else:
        return
    for key, value in items:
        yield from _repeated_keys(value, (*loc, key))


def _path(loc: tuple[Any, ...]) -> str | None:
    """``("conversation", 1, "required_signals", 0)`` -> ``conversation[1].required_signals[0]``."""
    text = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
    return text.lstrip(".") or None


def _type_name(value: Any) -> str:
    names: dict[type, str] = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}
    for kind, label in names.items():
        if isinstance(value, kind):
            return label
    if value is None:
        return "nothing (null)"
    return f"{type(value).__name__} {value!r}"
