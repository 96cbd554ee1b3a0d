"""Writing answers into a suite file as pins, leaving the rest of the file as it was.

``audit-pipeline pin`` turns an audit's answers into ``pinned_response`` entries. A suite is a
hand-written file with comments and a layout its authors chose, so YAML is edited in place: the
composed YAML nodes give the exact character range of every entry, each pin is inserted (or an
old pin's value replaced) at its entry, and nothing else changes. JSON and JSONL carry no
comments and are rewritten. Either way the result is validated as a suite before it replaces the
file, atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from audit_pipeline.suites.loader import SUFFIX_FORMATS, parse_suite

TurnKey = tuple[str, int]
_FIELDS = ("pinned_response", "pinned_tolerance", "pinned_min_similarity")


class PinError(ValueError):
    """The pins cannot be written; the message names the file and the prompt."""


def pin_fields(answer: str, tolerance: str, min_similarity: float | None) -> dict[str, object]:
    fields: dict[str, object] = {"pinned_response": answer, "pinned_tolerance": tolerance}
    if tolerance == "semantic" and min_similarity is not None:
        fields["pinned_min_similarity"] = min_similarity
    return fields


def write_pins(
    path: Path, answers: Mapping[TurnKey, str], tolerance: str, min_similarity: float | None
) -> None:
    """Pin ``answers`` ((prompt id, turn) -> text) in the suite file at ``path``."""
    fmt = SUFFIX_FORMATS.get(path.suffix.lower())
    text = path.read_text(encoding="utf-8-sig")
    pins = {key: pin_fields(a, tolerance, min_similarity) for key, a in answers.items()}
    if fmt == "yaml":
        updated = _pin_yaml(text, pins, path)
    elif fmt == "json":
        document = json.loads(text)
        entries = document.get("prompts") if isinstance(document, dict) else document
        _check_all_found(pins, _pin_entries(entries or [], pins), path)
        updated = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    elif fmt == "jsonl":
        lines = text.splitlines()
        found: set[TurnKey] = set()
        for number, line in enumerate(lines):
            if line.strip():
                entry = json.loads(line)
                pinned = _pin_entries([entry], pins)
                if pinned:
                    found |= pinned
                    lines[number] = json.dumps(entry, ensure_ascii=False)
        _check_all_found(pins, found, path)
        updated = "\n".join(lines) + "\n"
    else:
        raise PinError(f"{path}: not a suite file (suffix {path.suffix!r})")
    suite = parse_suite(updated, source=str(path), fmt=fmt, default_name=path.stem)
    for (prompt_id, turn), answer in answers.items():
        if suite.get(prompt_id).turns[turn].pinned_response != answer:
            raise PinError(f"{path}: prompt {prompt_id!r} turn {turn}: the pin did not round-trip")
    _write_atomic(path, updated)


def _pin_entries(entries: list[Any], pins: Mapping[TurnKey, dict[str, object]]) -> set[TurnKey]:
    """Set the pin fields on parsed JSON entries; the turns pinned."""
    found: set[TurnKey] = set()
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        turns = entry.get("conversation")
        targets = turns if isinstance(turns, list) else [entry]
        for index, target in enumerate(targets):
            fields = pins.get((str(entry.get("id")), index))
            if fields is not None and isinstance(target, dict):
                for name in _FIELDS:
                    target.pop(name, None)
                target.update(fields)
                found.add((str(entry.get("id")), index))
    return found


def _check_all_found(pins: Mapping[TurnKey, object], found: set[TurnKey], path: Path) -> None:
    missing = sorted(set(pins) - found)
    if missing:
        names = ", ".join(f"{p} turn {t}" for p, t in missing)
        raise PinError(f"{path}: no such prompt turn in the suite: {names}")


# -- YAML, edited in place ---------------------------------------------------------------------


def _pin_yaml(text: str, pins: Mapping[TurnKey, dict[str, object]], path: Path) -> str:
    root = yaml.compose(text)
    if isinstance(root, yaml.MappingNode):
        root = next((v for k, v in root.value if k.value == "prompts"), None)
    if not isinstance(root, yaml.SequenceNode):
        raise PinError(f"{path}: no list of prompts found")
    edits: list[tuple[int, int, str]] = []
    found: set[TurnKey] = set()
    for entry in root.value:
        if not isinstance(entry, yaml.MappingNode):
            continue
        values = {k.value: v for k, v in entry.value}
        prompt_id = getattr(values.get("id"), "value", None)
        conversation = values.get("conversation")
        targets = conversation.value if isinstance(conversation, yaml.SequenceNode) else [entry]
        for index, target in enumerate(targets):
            fields = pins.get((str(prompt_id), index))
            if fields is not None and isinstance(target, yaml.MappingNode):
                edits.extend(_mapping_edits(text, target, fields))
                found.add((str(prompt_id), index))
    _check_all_found(pins, found, path)
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _scalar(name: str, value: object) -> str:
    # The answer as a JSON string, which is a YAML double-quoted scalar (ASCII-only keeps every
    # character safe); the tolerance and the similarity are plain words and numbers.
    return json.dumps(value) if name == "pinned_response" else str(value)


def _mapping_edits(
    text: str, node: yaml.MappingNode, fields: Mapping[str, object]
) -> list[tuple[int, int, str]]:
    edits = []
    present = {key.value: (key, value) for key, value in node.value}
    for name in _FIELDS:
        if name in present and name not in fields:
            key, value = present[name]
            edits.append(_removal(text, node, key, value))
    missing = []
    for name, new in fields.items():
        if name in present:
            _, value = present[name]
            old = text[value.start_mark.index : value.end_mark.index]
            tail = old[len(old.rstrip("\n")) :]  # a block scalar owns its line breaks
            edits.append((value.start_mark.index, value.end_mark.index, _scalar(name, new) + tail))
        else:
            missing.append(f"{name}: {_scalar(name, new)}")
    if missing:
        edits.append(_insertion(text, node, missing))
    return edits


def _insertion(text: str, node: yaml.MappingNode, lines: list[str]) -> tuple[int, int, str]:
    end = node.end_mark.index
    if node.flow_style:
        close = text.rindex("}", 0, end)
        body = "".join(f", {line}" for line in lines)
        return close, close, body
    column = node.value[0][0].start_mark.column
    block = "".join(f"{' ' * column}{line}\n" for line in lines)
    last = node.value[-1][1].end_mark.index
    if last > 0 and text[last - 1] == "\n":
        return last, last, block
    newline = text.find("\n", last)
    if newline < 0:
        return len(text), len(text), "\n" + block
    return newline + 1, newline + 1, block


def _removal(
    text: str, node: yaml.MappingNode, key: yaml.Node, value: yaml.Node
) -> tuple[int, int, str]:
    start, end = key.start_mark.index, value.end_mark.index
    if node.flow_style:
        comma = text.rfind(",", 0, start)
        return comma, end, ""
    line_start = text.rfind("\n", 0, start) + 1
    if text[end - 1 : end] != "\n":
        newline = text.find("\n", end)
        end = len(text) if newline < 0 else newline + 1
    return line_start, end, ""


def _write_atomic(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, path.stat().st_mode & 0o777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
