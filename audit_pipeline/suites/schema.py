"""Field rules for suite entries: spellings, types, and conversion to ``SuitePrompt``.

Two spellings are accepted: the project's snake_case and the camelCase of the original Shield
Bot harness, so its eval files load unchanged. Every rule records an issue and goes on instead
of stopping, so one run reports all problems in an entry.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from audit_pipeline.suites.errors import MISSING_ID, SuiteIssue
from audit_pipeline.suites.prompt_suite import (
    EXPECTED_BEHAVIORS,
    TOLERANCES,
    ExpectedBehavior,
    SuitePrompt,
    SuiteTurn,
    split_signal_group,
)

BEHAVIOR_ALIASES = {"security_clearance_fallback": "fallback"}

# Per-turn expectations: allowed on a single prompt and on each conversation turn.
_EXPECTATIONS = (
    "expected_behavior",
    "required_signals",
    "must_not_appear",
    "must_not_assert",
    "required_citation_source",
    "citation_must_contain",
    "pinned_response",
    "pinned_tolerance",
    "pinned_min_similarity",
)
PROMPT_FIELDS = (
    "id",
    "category",
    "prompt",
    "conversation",
    *_EXPECTATIONS,
    "expected_doc_ids",
    "notes",
)
TURN_FIELDS = ("prompt", *_EXPECTATIONS, "no_agreement", "assert_citation", "assert_fallback")
_CAMEL = {
    "expectedBehavior": "expected_behavior",
    "requiredSignals": "required_signals",
    "mustNotAppear": "must_not_appear",
    "mustNotAssert": "must_not_assert",
    "pinnedResponse": "pinned_response",
    "pinnedTolerance": "pinned_tolerance",
    "pinnedMinSimilarity": "pinned_min_similarity",
    "requiredCitationSource": "required_citation_source",
    "citationMustContain": "citation_must_contain",
    "expectedDocIds": "expected_doc_ids",
}
PROMPT_ALIASES = dict(_CAMEL)
TURN_ALIASES = {
    **_CAMEL,
    "user": "prompt",
    "assertNoAgreement": "no_agreement",
    "assertCitation": "assert_citation",
    "assertFallback": "assert_fallback",
}


@dataclass
class EntryChecker:
    """Collects the issues of one suite entry while its fields are converted."""

    file: str
    position: str
    prompt_id: str = MISSING_ID
    issues: list[SuiteIssue] = field(default_factory=list)

    def add(self, field_name: str | None, message: str) -> None:
        self.issues.append(
            SuiteIssue(self.file, self.position, self.prompt_id, field_name, message)
        )


def parse_entry(data: Any, file: str, position: str) -> tuple[SuitePrompt | None, list[SuiteIssue]]:
    """Convert one raw entry to a ``SuitePrompt``; None plus issues when anything is wrong."""
    check = EntryChecker(file, position)
    if not isinstance(data, Mapping):
        check.add(None, f"a prompt must be a mapping of fields, got {_type_name(data)}")
        return None, check.issues
    raw_id = data.get("id")
    if isinstance(raw_id, str | int | float) and not isinstance(raw_id, bool) and str(raw_id):
        check.prompt_id = str(raw_id)

    fields = _normalise_keys(data, PROMPT_FIELDS, PROMPT_ALIASES, check, prefix="")
    prompt_id = _required_str(fields, "id", check, prefix="", hint=" (quote it in YAML)")
    category = _required_str(fields, "category", check, prefix="")
    expected_doc_ids = _str_list(fields, "expected_doc_ids", check, prefix="")
    notes = _optional_str(fields, "notes", check, prefix="")

    turns: list[SuiteTurn] = []
    is_conversation = "conversation" in fields
    if is_conversation:
        if "prompt" in fields:
            check.add("prompt", "give either 'prompt' or 'conversation', not both")
        for name in _EXPECTATIONS:
            if name in fields:
                check.add(name, "with 'conversation', expectations belong in each turn")
        conversation = fields["conversation"]
        if not isinstance(conversation, list) or not conversation:
            check.add("conversation", "must be a non-empty list of turns")
        else:
            for index, raw_turn in enumerate(conversation):
                turn = _parse_turn(raw_turn, check, prefix=f"conversation[{index}].")
                if turn is not None:
                    turns.append(turn)
    else:
        if "prompt" not in fields:
            check.add("prompt", "required field missing (or give a 'conversation')")
        turn = _parse_turn_fields(fields, check, prefix="")
        if turn is not None:
            turns.append(turn)

    if check.issues or prompt_id is None or category is None:
        return None, check.issues
    return (
        SuitePrompt(
            id=prompt_id,
            category=category,
            turns=tuple(turns),
            is_conversation=is_conversation,
            expected_doc_ids=expected_doc_ids,
            notes=notes,
        ),
        [],
    )


def _parse_turn(raw: Any, check: EntryChecker, prefix: str) -> SuiteTurn | None:
    field_name = prefix.rstrip(".")
    if not isinstance(raw, Mapping):
        check.add(field_name, f"a turn must be a mapping of fields, got {_type_name(raw)}")
        return None
    fields = _normalise_keys(raw, TURN_FIELDS, TURN_ALIASES, check, prefix=prefix)
    if "prompt" not in fields:
        check.add(f"{prefix}prompt", "required field missing (camelCase form: 'user')")
    return _parse_turn_fields(fields, check, prefix=prefix)


def _parse_turn_fields(
    fields: dict[str, Any], check: EntryChecker, prefix: str
) -> SuiteTurn | None:
    before = len(check.issues)
    prompt = _required_str(fields, "prompt", check, prefix=prefix) if "prompt" in fields else None
    behavior = _behavior(fields, check, prefix)
    signals = _str_list(fields, "required_signals", check, prefix=prefix)
    for index, group in enumerate(signals):
        if any(not alternative for alternative in split_signal_group(group)):
            check.add(
                f"{prefix}required_signals[{index}]",
                f"signal group {group!r} has an empty alternative (groups look like 'a|b|c')",
            )
    must_not_appear = _str_list(fields, "must_not_appear", check, prefix=prefix)
    must_not_assert = _str_list(fields, "must_not_assert", check, prefix=prefix)
    citation_source = _optional_str(fields, "required_citation_source", check, prefix=prefix)
    citation_must_contain = _str_list(fields, "citation_must_contain", check, prefix=prefix)
    no_agreement = _bool(fields, "no_agreement", check, prefix=prefix)
    pin = _pin(fields, check, prefix)
    if prompt is None or len(check.issues) > before:
        return None
    return SuiteTurn(
        prompt=prompt,
        expected_behavior=behavior,
        required_signals=signals,
        must_not_appear=must_not_appear,
        required_citation_source=citation_source,
        citation_must_contain=citation_must_contain,
        no_agreement=no_agreement,
        must_not_assert=must_not_assert,
        **pin,
    )


def _pin(fields: dict[str, Any], check: EntryChecker, prefix: str) -> dict[str, Any]:
    """``pinned_response`` with its tolerance and, for ``semantic``, its minimum similarity."""
    response = fields.get("pinned_response")
    tolerance = fields.get("pinned_tolerance", "exact")
    similarity = fields.get("pinned_min_similarity")
    if response is None:
        for name in ("pinned_tolerance", "pinned_min_similarity"):
            if name in fields:
                check.add(f"{prefix}{name}", "needs a pinned_response")
        return {}
    if not isinstance(response, str) or not response.strip():
        check.add(f"{prefix}pinned_response", "must be a non-empty string")
    if tolerance not in TOLERANCES:
        check.add(
            f"{prefix}pinned_tolerance", f"{tolerance!r} is not one of: {', '.join(TOLERANCES)}"
        )
    pin: dict[str, Any] = {"pinned_response": response, "pinned_tolerance": tolerance}
    if similarity is not None:
        if tolerance != "semantic":
            check.add(
                f"{prefix}pinned_min_similarity", "only applies to pinned_tolerance: semantic"
            )
        elif (
            isinstance(similarity, bool)
            or not isinstance(similarity, int | float)
            or not 0 < similarity <= 1
        ):
            check.add(f"{prefix}pinned_min_similarity", "must be a number in (0, 1]")
        else:
            pin["pinned_min_similarity"] = float(similarity)
    return pin


def _behavior(fields: dict[str, Any], check: EntryChecker, prefix: str) -> ExpectedBehavior | None:
    """``expected_behavior``, or the seed's ``assertCitation`` / ``assertFallback`` flags."""
    chosen: list[tuple[str, str]] = []  # (spelling, behaviour)
    value = fields.get("expected_behavior")
    if value is not None:
        if not isinstance(value, str):
            check.add(f"{prefix}expected_behavior", f"must be a string, got {_type_name(value)}")
        else:
            behavior = BEHAVIOR_ALIASES.get(value, value)
            if behavior in EXPECTED_BEHAVIORS:
                chosen.append(("expected_behavior", behavior))
            else:
                allowed = ", ".join([*EXPECTED_BEHAVIORS, *BEHAVIOR_ALIASES])
                check.add(f"{prefix}expected_behavior", f"{value!r} is not one of: {allowed}")
    flags = (("assert_citation", "answer_with_citation"), ("assert_fallback", "fallback"))
    for flag, behavior in flags:
        if _bool(fields, flag, check, prefix=prefix):
            chosen.append((flag, behavior))
    if len({behavior for _, behavior in chosen}) > 1:
        spellings = " and ".join(spelling for spelling, _ in chosen)
        check.add(f"{prefix}expected_behavior", f"conflicting behaviours given by {spellings}")
        return None
    return cast(ExpectedBehavior, chosen[0][1]) if chosen else None


def _normalise_keys(
    data: Mapping[Any, Any],
    allowed: tuple[str, ...],
    aliases: Mapping[str, str],
    check: EntryChecker,
    prefix: str,
) -> dict[str, Any]:
    """Map every spelling to its canonical name; report unknown and repeated fields."""
    spellings = [*allowed, *aliases]
    seen: dict[str, str] = {}
    fields: dict[str, Any] = {}
    for key in getattr(data, "duplicates", ()):
        check.add(f"{prefix}{key}", "field given more than once in the same entry")
    for key, value in data.items():
        if not isinstance(key, str):
            check.add(f"{prefix}{key!r}", "field names must be strings")
            continue
        name = aliases.get(key, key)
        if name not in allowed:
            close = difflib.get_close_matches(key, spellings, n=1, cutoff=0.75)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            check.add(f"{prefix}{key}", f"unknown field{hint}")
            continue
        if name in seen:
            check.add(f"{prefix}{name}", f"given twice, as '{seen[name]}' and '{key}'")
            continue
        seen[name] = key
        if value is not None or name in ("id", "category", "prompt", "conversation"):
            fields[name] = value
    return fields


def _required_str(
    fields: dict[str, Any], name: str, check: EntryChecker, prefix: str, hint: str = ""
) -> str | None:
    if name not in fields:
        check.add(f"{prefix}{name}", "required field missing")
        return None
    value = fields[name]
    if not isinstance(value, str):
        check.add(f"{prefix}{name}", f"must be a string, got {_type_name(value)}{hint}")
        return None
    if not value.strip():
        check.add(f"{prefix}{name}", "must not be empty")
        return None
    return value


def _optional_str(
    fields: dict[str, Any], name: str, check: EntryChecker, prefix: str
) -> str | None:
    value = fields.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        check.add(f"{prefix}{name}", f"must be a string, got {_type_name(value)}")
        return None
    return value


def _str_list(
    fields: dict[str, Any], name: str, check: EntryChecker, prefix: str
) -> tuple[str, ...]:
    value = fields.get(name)
    if value is None:
        return ()
    if not isinstance(value, list):
        check.add(f"{prefix}{name}", f"must be a list of strings, got {_type_name(value)}")
        return ()
    items: list[str] = []
    for index, item in enumerate(value):
        if not isinstance(item, str):
            check.add(f"{prefix}{name}[{index}]", f"must be a string, got {_type_name(item)}")
        elif not item.strip():
            check.add(f"{prefix}{name}[{index}]", "must not be empty")
        else:
            items.append(item)
    return tuple(items)


def _bool(fields: dict[str, Any], name: str, check: EntryChecker, prefix: str) -> bool:
    value = fields.get(name, False)
    if not isinstance(value, bool):
        check.add(f"{prefix}{name}", f"must be true or false, got {_type_name(value)}")
        return False
    return value


def _type_name(value: Any) -> str:
    names: dict[type, str] = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}
    for kind, label in names.items():
        if isinstance(value, kind):
            return label
    if value is None:
        return "nothing (null)"
    return f"{type(value).__name__} {value!r}"
