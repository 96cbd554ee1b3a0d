"""JSON-schema objects (OpenAPI bodies, MCP tool inputs) as Markdown field tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_LIMITS = (
    ("minLength", "at least {} characters"),
    ("maxLength", "at most {} characters"),
    ("minimum", "≥ {}"),
    ("exclusiveMinimum", "> {}"),
    ("maximum", "≤ {}"),
    ("exclusiveMaximum", "< {}"),
    ("minItems", "at least {} items"),
    ("maxItems", "at most {} items"),
)


def resolve(schema: Mapping[str, Any], components: Mapping[str, Any]) -> Mapping[str, Any]:
    """``schema`` with a ``$ref`` to ``#/components/schemas/X`` or ``#/$defs/X`` followed."""
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return schema
    return resolve(components[ref.rsplit("/", 1)[-1]], components)


def type_of(schema: Mapping[str, Any], components: Mapping[str, Any]) -> str:
    """A short type name: ``string``, ``array of string``, ``string or null``, ``Name``."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return ref.rsplit("/", 1)[-1]
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return " or ".join(type_of(option, components) for option in options)
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {type_of(schema.get('items', {}), components)}"
    if "enum" in schema:
        return " or ".join(f"`{value}`" for value in schema["enum"])
    return str(kind)


def _limits(schema: Mapping[str, Any]) -> list[str]:
    found = []
    for option in [schema, *(schema.get("anyOf") or [])]:
        found += [text.format(option[key]) for key, text in _LIMITS if key in option]
        items = option.get("items")
        if isinstance(items, Mapping):
            found += [f"each {text.format(items[key])}" for key, text in _LIMITS if key in items]
    return found


def cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def fields_table(schema: Mapping[str, Any], components: Mapping[str, Any]) -> str:
    """One row per property: name, type, required or its default, limits, description."""
    schema = resolve(schema, components)
    properties: Mapping[str, Any] = schema.get("properties", {})
    if not properties:
        return "No fields."
    required = set(schema.get("required", []))
    rows = ["| field | type | required / default | limits | description |", "|---|---|---|---|---|"]
    for name, field in properties.items():
        if name in required:
            need = "required"
        elif "default" in field:
            need = f"default `{field['default']}`"
        else:
            need = "optional"
        limits = ", ".join(_limits(field)) or "—"
        description = field.get("description") or field.get("title") or ""
        kind = type_of(field, components)
        rows.append(f"| `{name}` | {cell(kind)} | {need} | {cell(limits)} | {cell(description)} |")
    extra = schema.get("additionalProperties")
    note = "\n\nOther fields are refused." if extra is False else ""
    return "\n".join(rows) + note
