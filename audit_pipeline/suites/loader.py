"""Read suite files (YAML, JSON, JSONL) into a validated ``PromptSuite``.

Parsing keeps positions (list index plus line for YAML and JSON, line for JSONL) and notices
repeated keys, which plain ``yaml.safe_load``/``json.loads`` silently collapse; both matter when
a suite author has to find the one broken entry among hundreds.
"""

from __future__ import annotations

import bisect
import json
import json.decoder
import json.scanner
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from audit_pipeline.suites.errors import (
    MISSING_ID,
    SuiteFileError,
    SuiteIssue,
    SuiteValidationError,
)
from audit_pipeline.suites.fuzz import parse_transformations
from audit_pipeline.suites.prompt_suite import PromptSuite, SuitePrompt
from audit_pipeline.suites.schema import parse_entry

SuiteFormat = Literal["yaml", "json", "jsonl"]
SUFFIX_FORMATS: dict[str, SuiteFormat] = {
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}
SUITE_LEVEL = "(suite level)"
METADATA_FIELDS = ("name", "version", "description", "fuzz", "prompts")


class _Mapping(dict[Any, Any]):
    """A parsed mapping that remembers its line and any keys it saw twice."""

    line: int | None = None
    duplicates: list[Any]

    def __init__(self) -> None:
        super().__init__()
        self.duplicates = []


@dataclass(frozen=True)
class _Entry:
    position: str
    data: Any


def load_suite(path: str | Path) -> PromptSuite:
    """Load and validate one suite file; the format comes from the file suffix."""
    path = Path(path)
    if not path.exists() or path.is_dir():
        problem = "is a directory, not a suite file" if path.exists() else "file not found"
        raise SuiteFileError(f"prompt suite {path}: {problem}")
    fmt = SUFFIX_FORMATS.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(SUFFIX_FORMATS)
        issue = SuiteIssue(str(path), "file", SUITE_LEVEL, None, f"unknown suffix; use {known}")
        raise SuiteValidationError([issue])
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SuiteFileError(f"prompt suite {path}: unreadable ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        issue = SuiteIssue(
            str(path), f"byte {exc.start}", SUITE_LEVEL, None, "file is not valid UTF-8"
        )
        raise SuiteValidationError([issue]) from None
    return parse_suite(text, source=str(path), fmt=fmt, default_name=path.stem)


def parse_suite(
    text: str, *, source: str, fmt: SuiteFormat, default_name: str | None = None
) -> PromptSuite:
    """Validate suite text; raises ``SuiteValidationError`` listing every problem."""
    issues: list[SuiteIssue] = []
    metadata: dict[str, Any] = {
        "name": default_name,
        "version": None,
        "description": None,
        "fuzz": (),
    }
    if fmt == "jsonl":
        entries = _jsonl_entries(text, source, issues)
    else:
        document = _parse_document(text, source, fmt, issues)
        entries = [] if issues else _document_entries(document, source, metadata, issues)

    prompts: list[SuitePrompt] = []
    first_position: dict[str, str] = {}
    for entry in entries:
        prompt, entry_issues = parse_entry(entry.data, source, entry.position)
        issues.extend(entry_issues)
        # Duplicates are checked on the raw id so they are reported even in broken entries.
        raw_id = entry.data.get("id") if isinstance(entry.data, Mapping) else None
        if isinstance(raw_id, str) and raw_id in first_position:
            issues.append(
                SuiteIssue(
                    source,
                    entry.position,
                    raw_id,
                    "id",
                    f"duplicate id; first used at {first_position[raw_id]}",
                )
            )
        elif isinstance(raw_id, str):
            first_position[raw_id] = entry.position
        if prompt is not None:
            prompts.append(prompt)
    if not issues and not entries:
        issues.append(SuiteIssue(source, "file", SUITE_LEVEL, "prompts", "the suite is empty"))
    if issues:
        raise SuiteValidationError(issues)
    return PromptSuite(
        name=metadata["name"] or "suite",
        prompts=tuple(prompts),
        version=metadata["version"],
        description=metadata["description"],
        source=source,
        fuzz=metadata["fuzz"],
    )


def _document_entries(
    document: Any, source: str, metadata: dict[str, Any], issues: list[SuiteIssue]
) -> list[_Entry]:
    """Entries of a YAML/JSON document: a bare list, or an object with metadata + prompts."""
    if isinstance(document, Mapping):
        for key in getattr(document, "duplicates", ()):
            issues.append(SuiteIssue(source, "top level", SUITE_LEVEL, str(key), "given twice"))
        for key, value in document.items():
            if key not in METADATA_FIELDS:
                issues.append(
                    SuiteIssue(
                        source,
                        "top level",
                        SUITE_LEVEL,
                        str(key),
                        f"unknown suite field; allowed: {', '.join(METADATA_FIELDS)}",
                    )
                )
            elif key == "fuzz":
                try:
                    metadata["fuzz"] = parse_transformations(value)
                except (ValueError, TypeError) as error:
                    issues.append(SuiteIssue(source, "top level", SUITE_LEVEL, "fuzz", str(error)))
            elif key != "prompts" and value is not None:
                if isinstance(value, str | int | float) and not isinstance(value, bool):
                    metadata[key] = str(value)
                else:
                    issues.append(
                        SuiteIssue(source, "top level", SUITE_LEVEL, key, "must be a string")
                    )
        prompts = document.get("prompts")
        if prompts is None:
            issues.append(
                SuiteIssue(source, "top level", SUITE_LEVEL, "prompts", "required field missing")
            )
            return []
    else:
        prompts = document
    if not isinstance(prompts, list):
        issues.append(
            SuiteIssue(
                source,
                "top level",
                SUITE_LEVEL,
                "prompts",
                "a suite is a list of prompts, or an object with a 'prompts' list",
            )
        )
        return []
    return [_Entry(_list_position(index, item), item) for index, item in enumerate(prompts)]


def _list_position(index: int, item: Any) -> str:
    line = getattr(item, "line", None)
    return f"prompts[{index}]" + (f" (line {line})" if line else "")


def _jsonl_entries(text: str, source: str, issues: list[SuiteIssue]) -> list[_Entry]:
    entries: list[_Entry] = []
    decoder = _PositionDecoder("")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entries.append(_Entry(f"line {number}", decoder.decode(line)))
        except json.JSONDecodeError as exc:
            issues.append(
                SuiteIssue(
                    source,
                    f"line {number}, column {exc.colno}",
                    _nearest(_JSON_ID, line, exc.pos) or MISSING_ID,
                    _nearest(_JSON_KEY, line, exc.pos),
                    f"invalid JSON: {exc.msg}",
                )
            )
    return entries


def _parse_document(text: str, source: str, fmt: SuiteFormat, issues: list[SuiteIssue]) -> Any:
    try:
        if fmt == "json":
            return _PositionDecoder(text).decode(text)
        return _load_yaml(text)
    except json.JSONDecodeError as exc:
        issues.append(
            _syntax_issue(source, "JSON", exc.msg, exc.lineno, exc.colno, text, exc.pos, _JSON_ID)
        )
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column, offset = (mark.line + 1, mark.column + 1, mark.index) if mark else (1, 1, 0)
        problem = exc.problem or ""
        anchor = offset
        if exc.context and exc.context_mark:
            # The construct the parser was inside (e.g. a quoted string left open) starts at
            # context_mark: the prompt and field around it are the ones to name.
            start = exc.context_mark
            problem = f"{exc.context} (line {start.line + 1}, column {start.column + 1}): {problem}"
            anchor = start.index
        elif exc.context:
            problem = f"{exc.context}: {problem}"
        line_end = text.find("\n", anchor)
        anchor = len(text) if line_end < 0 else line_end
        issues.append(_syntax_issue(source, "YAML", problem, line, column, text, anchor, _YAML_ID))
    except yaml.YAMLError as exc:
        issues.append(SuiteIssue(source, "file", MISSING_ID, None, f"invalid YAML: {exc}"))
    return None


_JSON_ID = re.compile(r'"id"\s*:\s*"([^"\\]*)"')
_JSON_KEY = re.compile(r'"([^"\\]+)"\s*:')
_YAML_ID = re.compile(r"^[\s-]*id\s*:\s*[\"']?([^\"'#\n]*?)[\"']?\s*(?:#.*)?$", re.MULTILINE)
_YAML_KEY = re.compile(r"^[\s-]*([A-Za-z_][\w]*)\s*:", re.MULTILINE)


def _syntax_issue(
    source: str,
    language: str,
    problem: str,
    line: int,
    column: int,
    text: str,
    offset: int,
    id_pattern: re.Pattern[str],
) -> SuiteIssue:
    """A syntax error located by line, naming the prompt id and field written just before it.

    The parser cannot say which prompt it was reading, so the nearest ``id`` and key before the
    error offset are reported: that is where an author starts looking.
    """
    key_pattern = _JSON_KEY if language == "JSON" else _YAML_KEY
    prompt_id = _nearest(id_pattern, text, offset)
    return SuiteIssue(
        source,
        f"line {line}, column {column}",
        f"{prompt_id} (last id before the error)" if prompt_id else MISSING_ID,
        _nearest(key_pattern, text, offset),
        f"invalid {language}: {problem}",
    )


def _nearest(pattern: re.Pattern[str], text: str, offset: int) -> str | None:
    found = None
    for match in pattern.finditer(text, 0, max(offset, 0) + 1):
        found = match.group(1).strip()
    return found or None


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader whose mappings carry their line and the keys that occur twice."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> Any:
    data = _Mapping()
    data.line = node.start_mark.line + 1
    yield data
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                "found an unhashable key",
                key_node.start_mark,
            ) from None
        if key in data:
            data.duplicates.append(key)
        data[key] = loader.construct_object(value_node, deep=True)


_StrictLoader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)


def _load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=_StrictLoader)  # a SafeLoader subclass: no arbitrary objects


class _PositionDecoder(json.JSONDecoder):
    """JSON decoder producing ``_Mapping`` objects with line numbers and duplicate keys.

    The C scanner ignores a custom ``parse_object``; the pure-Python scanner honours it, and
    suites are small enough that its speed does not matter.
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self._newlines = [index for index, char in enumerate(text) if char == "\n"]

        def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[_Mapping, int]:
            _, start = s_and_end
            # JSONObject and py_make_scanner are stdlib internals that typeshed does not list.
            pairs, end = json.decoder.JSONObject(s_and_end, *args)  # type: ignore[attr-defined]
            data = _Mapping()
            data.line = bisect.bisect_left(self._newlines, start) + 1
            for key, value in pairs:
                if key in data:
                    data.duplicates.append(key)
                data[key] = value
            return data, end

        self.object_pairs_hook = list
        self.parse_object = parse_object
        self.scan_once = json.scanner.py_make_scanner(self)  # type: ignore[attr-defined]
