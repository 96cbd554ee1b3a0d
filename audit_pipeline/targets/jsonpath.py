"""A deliberately small JSON path: dotted keys and list indexes, nothing that evaluates code.

Chat endpoints put the answer at a fixed place (``choices.0.message.content``, ``$.answer``);
a full JSONPath engine would add a dependency and features no config needs.
"""

from __future__ import annotations

import re
from typing import Any

PathStep = str | int
_STEP = re.compile(r"\[(\d+)\]|\[\"([^\"]*)\"\]|\['([^']*)'\]|([^.\[\]]+)")


class JsonPathError(ValueError):
    """The path is malformed, or the document has nothing at that path."""


def parse_path(path: str) -> tuple[PathStep, ...]:
    """``"$.choices[0].message.content"`` / ``"choices.0.message.content"`` -> steps.

    A purely numeric dotted step is kept as text and tried as a list index when the value is a
    list, so ``choices.0`` works on lists and ``{"0": ...}`` objects alike.
    """
    body = path.strip()
    if body.startswith("$"):
        body = body[1:].lstrip(".")
    if not body:
        raise JsonPathError(f"JSON path {path!r} selects nothing; write e.g. 'answer'")
    steps: list[PathStep] = []
    position = 0
    while position < len(body):
        if body[position] == "." and steps:
            position += 1
        match = _STEP.match(body, position)
        if match is None:
            raise JsonPathError(f"JSON path {path!r}: cannot read it at character {position}")
        index, double_quoted, single_quoted, name = match.groups()
        if index is not None:
            steps.append(int(index))
        else:
            key = next(k for k in (double_quoted, single_quoted, name) if k is not None)
            steps.append(key)
        position = match.end()
    return tuple(steps)


def get_path(document: Any, path: str) -> Any:
    """The value at ``path``; JsonPathError names the first step that is missing."""
    current = document
    walked = "$"
    for step in parse_path(path):
        if isinstance(current, list):
            index = step if isinstance(step, int) else int(step) if step.isdigit() else None
            if index is None or index >= len(current):
                raise JsonPathError(
                    f"JSON path {path!r}: {walked} is a list of {len(current)}, no item {step!r}"
                )
            current = current[index]
        elif isinstance(current, dict):
            key = str(step)
            if key not in current:
                raise JsonPathError(f"JSON path {path!r}: {walked} has no key {key!r}")
            current = current[key]
        else:
            raise JsonPathError(
                f"JSON path {path!r}: {walked} is {type(current).__name__}, not an object or list"
            )
        walked = f"{walked}.{step}"
    return current
