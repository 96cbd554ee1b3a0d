"""YAML that refuses a key given twice in one mapping.

``yaml.safe_load`` keeps the last of two equal keys without a word: a second ``gates:`` block
pasted at the end of ``audit.yaml`` silently replaced the first and switched the hallucination
gate off. Here the second one is an error naming both lines.
"""

from __future__ import annotations

from typing import Any

import yaml


class DuplicateKeyError(yaml.YAMLError):
    """A mapping holds the same key twice; the message names both lines."""

    def __init__(self, key: object, first_line: int, second_line: int, path: str) -> None:
        where = f" in {path}" if path else " at the top level"
        super().__init__(
            f"key {key!r}{where} is given twice, at line {first_line} and at line "
            f"{second_line}; the second would silently replace the first"
        )


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that records where each mapping key was written."""


def _path_of(loader: _UniqueKeyLoader, node: yaml.MappingNode) -> str:
    return str(getattr(loader, "_paths", {}).get(id(node), ""))


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode) -> Any:
    paths: dict[int, str] = loader.__dict__.setdefault("_paths", {})
    here = _path_of(loader, node)
    seen: dict[object, int] = {}
    # Keys written in this mapping; a key merged in with ``<<`` may be overridden, as in YAML.
    for key_node, value_node in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=True)
        try:
            first = seen.get(key)
        except TypeError:
            continue  # an unhashable key: construct_mapping reports it below
        line = key_node.start_mark.line + 1
        if first is not None:
            raise DuplicateKeyError(key, first, line, here)
        seen[key] = line
        if isinstance(value_node, yaml.MappingNode):
            paths[id(value_node)] = f"{here}.{key}" if here else str(key)
    loader.flatten_mapping(node)
    return loader.construct_mapping(node, deep=True)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_unique_keys(text: str) -> Any:
    """``yaml.safe_load`` that raises ``DuplicateKeyError`` on a repeated key."""
    return yaml.load(text, Loader=_UniqueKeyLoader)  # a SafeLoader subclass: no objects


def yaml_error_where(error: yaml.YAMLError) -> str:
    """`` at line L, column C`` of a syntax error, for a message; empty without a position."""
    mark = getattr(error, "problem_mark", None)
    return f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
