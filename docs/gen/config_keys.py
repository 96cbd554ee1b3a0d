"""``docs/reference/configuration.md``: every key of ``audit.yaml`` from the pydantic models.

The key, its type, its default and what it means come from the model that validates it: the
field's ``description`` where it has one, else the comment written beside or above the field in
the model's source (the code's own words; read with ``tokenize``, so a ``#`` inside a string
is never taken for one). A key added to a model appears here on the next generation.
"""

from __future__ import annotations

import inspect
import io
import json
import re
import textwrap
import tokenize
import types
import typing
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from audit_pipeline.config import AuditConfig

from .key_meanings import MEANINGS

INTERNAL = {"base_dir"}  # set by the loader, never written in audit.yaml
_FIELD_LINE = re.compile(r"^(\s+)(\w+)\s*:")


def _comments(model: type[BaseModel]) -> dict[str, str]:
    """Field name -> the comment beside it, else the comment lines right above it."""
    try:
        source = textwrap.dedent(inspect.getsource(model))
    except (OSError, TypeError):
        return {}
    lines = source.splitlines()
    by_line: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            by_line[token.start[0]] = token.string.lstrip("#").strip()
    found: dict[str, str] = {}
    body_indent: str | None = None
    for number, line in enumerate(lines, start=1):
        match = _FIELD_LINE.match(line)
        if not match or line.lstrip().startswith(("def ", "class ", "@")):
            continue
        indent, name = match.groups()
        body_indent = body_indent or indent
        if indent != body_indent or name in found:
            continue
        if number in by_line:
            found[name] = by_line[number]
            continue
        above: list[str] = []
        previous = number - 1
        while previous in by_line and lines[previous - 1].lstrip().startswith("#"):
            above.insert(0, by_line[previous])
            previous -= 1
        if above:
            found[name] = " ".join(above)
    return found


def _models(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation holds (a union of target types gives several)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    models: list[type[BaseModel]] = []
    for arg in get_args(annotation):
        models += _models(arg)
    return models


def _type(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return _type(get_args(annotation)[0])
    if origin is typing.Literal:
        return " or ".join(f"`{value}`" for value in get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        names = list(dict.fromkeys(_type(arg) for arg in get_args(annotation)))
        return " or ".join(names)
    if origin in (list, tuple, set, frozenset):
        args = [arg for arg in get_args(annotation) if arg is not Ellipsis]
        return f"list of {_type(args[0])}" if args else "list"
    if origin is dict:
        key, value = get_args(annotation)
        return f"mapping of {_type(key)} to {_type(value)}"
    if annotation is type(None):
        return "null"
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return "section"
        if issubclass(annotation, Path):
            return "path"
        if issubclass(annotation, Enum):
            return " or ".join(f"`{member.value}`" for member in annotation)
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _default(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    value = field.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "see below"
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, tuple | frozenset | set):
        value = list(value)
    try:
        text = json.dumps(value, default=str)
    except TypeError:
        text = str(value)
    if text in ("{}", "[]") and value is not PydanticUndefined:
        return "empty"
    return f"`{text}`" if len(text) <= 60 else f"`{text[:57]}...`"


def _limits(field: FieldInfo) -> str:
    parts = []
    for item in field.metadata:
        for name, sign in (("gt", ">"), ("ge", "≥"), ("lt", "<"), ("le", "≤")):
            value = getattr(item, name, None)
            if value is not None:
                parts.append(f"{sign} {value}")
        pattern = getattr(item, "pattern", None)
        if pattern:
            parts.append(f"matches `{pattern}`")
    return ", ".join(parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _first_paragraph(model: type[BaseModel]) -> str:
    doc = inspect.getdoc(model) or ""
    base_doc = inspect.getdoc(BaseModel) or ""
    if not doc or doc == base_doc:
        return ""
    return " ".join(doc.split("\n\n")[0].split())


def _section(
    prefix: str, model: type[BaseModel], out: list[str], seen: set[str], title: str = ""
) -> None:
    """The table of ``model``'s keys under ``prefix``, then a section per nested model."""
    comments = _comments(model)
    for base in model.__mro__[1:]:
        if isinstance(base, type) and issubclass(base, BaseModel) and base is not BaseModel:
            comments = {**_comments(base), **comments}
    rows = []
    nested: list[tuple[str, type[BaseModel], str]] = []
    for name, field in model.model_fields.items():
        if name in INTERNAL:
            continue
        key = f"{prefix}.{name}" if prefix else name
        models = _models(field.annotation)
        if get_origin(field.annotation) is dict and models:
            for nested_model in models:
                label = _discriminator(nested_model)
                heading = f"{key}.NAME" + (f" ({label})" if label else "")
                nested.append((f"{key}.NAME", nested_model, heading))
        elif models:
            nested += [(key, nested_model, key) for nested_model in models]
        meaning = (
            field.description
            or comments.get(name)
            or MEANINGS.get(key)
            or " ".join(_first_paragraph(m) for m in models[:1])
        )
        limits = _limits(field)
        rows.append(
            f"| `{key}` | {_cell(_type(field.annotation))} | {_default(field)} | "
            f"{_cell(limits) or '—'} | {_cell(meaning)} |"
        )
    out.append(f"## {title or prefix or 'top level'}\n")
    intro = _first_paragraph(model)
    if intro:
        out.append(intro + "\n")
    out.append("| key | type | default | limits | meaning |\n|---|---|---|---|---|")
    out.append("\n".join(rows) + "\n")
    for key, nested_model, heading in nested:
        if heading in seen:
            continue
        seen.add(heading)
        _section(key, nested_model, out, seen, heading)


def _discriminator(model: type[BaseModel]) -> str:
    """``type: replay`` for a target model, from its ``type`` field's one literal value."""
    field = model.model_fields.get("type")
    if field is None:
        return ""
    values = get_args(field.annotation)
    return f"type: {values[0]}" if len(values) == 1 else ""


def all_keys(prefix: str = "", model: type[BaseModel] = AuditConfig) -> set[str]:
    """Every key the models define, as the tables name them (``targets.NAME.type``...)."""
    keys: set[str] = set()
    for name, field in model.model_fields.items():
        if name in INTERNAL:
            continue
        key = f"{prefix}.{name}" if prefix else name
        keys.add(key)
        nested = "NAME." if get_origin(field.annotation) is dict else ""
        for nested_model in _models(field.annotation):
            keys |= all_keys(f"{key}.{nested}".rstrip("."), nested_model)
    return keys


def unknown_keys() -> list[str]:
    """Entries of ``key_meanings.MEANINGS`` that name no key of the models."""
    return sorted(set(MEANINGS) - all_keys())


def render() -> str:
    out = [
        "# Configuration keys (`audit.yaml`)\n",
        "Generated by `python -m docs.gen` from the pydantic models that validate `audit.yaml`"
        " (`audit_pipeline/config.py` and the settings models it includes); do not edit by"
        " hand. How the file is read (relative paths, unknown keys, strict types) is on the"
        " [configuration guide](../guides/configuration.md).\n",
    ]
    _section("", AuditConfig, out, set())
    return "\n".join(out).rstrip() + "\n"
