"""A target that answers from recorded responses, to audit logs of a bot already in use.

Recordings come from outside (production logs, another team's export), so every row is
validated on load and problems are reported together with their row (a file that is not UTF-8
too, with the line where it stops being so); a prompt without a recording becomes an error row
in the audit instead of stopping it, and a recorded row that answers no turn of the suite (an
unknown prompt id, a turn the prompt does not have) is warned about rather than ignored.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit_pipeline.suites.prompt_suite import PromptSuite, SuitePrompt
from audit_pipeline.targets.base import (
    TargetConfigError,
    TargetError,
    TargetReply,
    TargetRequest,
    fingerprint_of,
)
from audit_pipeline.targets.target_config import ReplayTargetConfig

MAX_REPORTED_ISSUES = 20


@dataclass(frozen=True)
class RecordedAnswer:
    """One validated row of a recording; ``position`` locates it in the file."""

    position: str
    response: str
    prompt_id: str | None = None
    prompt: str | None = None
    turn: int = 0
    model: str | None = None
    context: tuple[str, ...] | None = None
    citations: tuple[str, ...] | None = None


class ReplayTarget:
    """Serves recorded answers matched by prompt id, by normalised prompt text, or ``auto``
    (id first, then text)."""

    kind = "replay"
    # The answer is looked up by prompt id and turn: the response cache must key on them too.
    answers_by_prompt_id = True

    def __init__(
        self, name: str, config: ReplayTargetConfig, *, base_dir: str | Path | None = None
    ) -> None:
        self.name = name
        self.config = config
        path = config.path
        self.path = path if path.is_absolute() or base_dir is None else Path(base_dir) / path
        if self.path.is_dir():
            raise TargetConfigError(
                f"target {name!r}: recording {self.path} is a directory, not a file"
            )
        if not self.path.is_file():
            raise TargetConfigError(f"target {name!r}: recording {self.path} does not exist")
        self._file_hash = hashlib.sha256(self.path.read_bytes()).hexdigest()
        self.answers = load_recording(self.path, config.match_on)
        self._by_id: dict[tuple[str, int], list[RecordedAnswer]] = {}
        self._by_text: dict[tuple[str, int], list[RecordedAnswer]] = {}
        for answer in self.answers:
            if answer.prompt_id is not None:
                self._by_id.setdefault((answer.prompt_id, answer.turn), []).append(answer)
            if answer.prompt is not None:
                key = (normalise_prompt(answer.prompt), answer.turn)
                self._by_text.setdefault(key, []).append(answer)

    def __repr__(self) -> str:
        return f"ReplayTarget(name={self.name!r}, path={str(self.path)!r})"

    def fingerprint(self) -> str:
        return fingerprint_of(
            self.kind, {"recording_sha256": self._file_hash, "match_on": self.config.match_on}
        )

    def _candidates(self, prompt_id: str, turn: int, prompt: str) -> list[RecordedAnswer]:
        """The recorded rows that answer this turn."""
        candidates: list[RecordedAnswer] = []
        if self.config.match_on in ("prompt_id", "auto"):
            candidates = self._by_id.get((prompt_id, turn), [])
        if not candidates and self.config.match_on in ("prompt", "auto"):
            candidates = self._by_text.get((normalise_prompt(prompt), turn), [])
        return candidates

    def lookup(self, prompt_id: str, turn: int, prompt: str) -> RecordedAnswer | None:
        """The recorded answer for this turn; TargetError when several rows disagree."""
        candidates = self._candidates(prompt_id, turn, prompt)
        if not candidates:
            return None
        if len({answer.response for answer in candidates}) > 1:
            rows = ", ".join(answer.position for answer in candidates)
            raise TargetError(
                f"ambiguous recording for prompt {prompt_id!r} turn {turn}: different "
                f"responses at {rows} of {self.path}"
            )
        return candidates[0]

    def missing(self, prompts: Iterable[SuitePrompt]) -> list[tuple[str, int]]:
        """(prompt id, turn) of every suite turn that has no recorded answer."""
        absent: list[tuple[str, int]] = []
        for prompt in prompts:
            for turn, suite_turn in enumerate(prompt.turns):
                try:
                    found = self.lookup(prompt.id, turn, suite_turn.prompt)
                except TargetError:
                    continue  # recorded, but ambiguous: answer() reports that
                if found is None:
                    absent.append((prompt.id, turn))
        return absent

    def check_suite(self, selected: PromptSuite, suite: PromptSuite) -> RecordingCheck:
        """How the recording fits the suite: ``selected`` is what this audit asks (after
        ``--id`` / ``--category``), ``suite`` the whole suite the recording was made for."""
        turns = sum(len(prompt.turns) for prompt in selected.prompts)
        missing = self.missing(selected.prompts)
        known = {prompt.id: len(prompt.turns) for prompt in suite.prompts}
        unknown = sorted({a.prompt_id for a in self.answers if a.prompt_id} - set(known))
        used = {
            id(answer)
            for prompt in suite.prompts
            for turn, suite_turn in enumerate(prompt.turns)
            for answer in self._candidates(prompt.id, turn, suite_turn.prompt)
        }
        unmatched = [
            _unmatched(answer, known)
            for answer in self.answers
            if id(answer) not in used and answer.prompt_id not in unknown
        ]
        swallowed = []
        for answer in self.answers:
            if not answer.position.startswith("lines "):
                continue  # only a quoted field over several lines can hide a row
            for line in answer.response.splitlines()[1:]:
                first = line.split(",", 1)[0].strip().strip('"')
                if "," in line and first in known and first != answer.prompt_id:
                    swallowed.append(
                        f"{answer.position}: the answer of {answer.prompt_id!r} holds a line "
                        f"that starts with prompt id {first!r} (an unbalanced quote swallowed "
                        "a row?)"
                    )
        return RecordingCheck(turns, len(missing), unknown, swallowed, unmatched)

    def answer(self, request: TargetRequest) -> TargetReply:
        found = self.lookup(request.prompt_id, request.turn, request.prompt)
        if found is None:
            raise TargetError(
                f"no recorded answer for prompt {request.prompt_id!r} turn {request.turn} "
                f"in {self.path} (match_on={self.config.match_on})"
            )
        return TargetReply(
            text=found.response, model=found.model, citations=found.citations, context=found.context
        )


@dataclass(frozen=True)
class RecordingCheck:
    """What ``ReplayTarget.check_suite`` found."""

    turns: int
    missing: int
    unknown_prompt_ids: list[str]
    swallowed_rows: list[str]
    unmatched_rows: list[str]  # rows of known prompts (or none) that answer no suite turn

    @property
    def coverage(self) -> float:
        return (self.turns - self.missing) / self.turns if self.turns else 1.0

    def errors(self, path: Path, min_coverage: float) -> list[str]:
        found = [f"recording {path}: {problem}" for problem in self.swallowed_rows]
        if self.coverage < min_coverage:
            found.append(
                f"recording {path} answers {self.turns - self.missing} of the {self.turns} "
                f"turns audited ({self.coverage:.0%}, below min_coverage {min_coverage:.0%})"
            )
        return found

    def warnings(self, path: Path) -> list[str]:
        found = []
        for problem, items in (
            ("answers prompt ids the suite does not have", self.unknown_prompt_ids),
            ("has rows that answer no turn of the suite (ignored)", self.unmatched_rows),
        ):
            if items:
                more = len(items) - 10
                found.append(
                    f"recording {path} {problem}: {', '.join(items[:10])}"
                    + (f" and {more} more" if more > 0 else "")
                )
        return found


def _unmatched(answer: RecordedAnswer, turns_of: dict[str, int]) -> str:
    """Why a recorded row of a known prompt (or of none) answers no suite turn."""
    count = turns_of.get(answer.prompt_id or "", 0)
    if answer.prompt_id is None or answer.turn < count:  # matched on text, and it does not
        return f"{answer.position} (its prompt text matches no turn {answer.turn} of the suite)"
    return (
        f"{answer.position} (prompt {answer.prompt_id!r} turn {answer.turn}: the suite's "
        f"prompt has {count} turn{'s' if count != 1 else ''})"
    )


def check_recording(target: object, selected: PromptSuite, suite: PromptSuite) -> list[str]:
    """For a replay target: raise ``TargetConfigError`` when the recording lost rows or
    answers too little of the audit; return warnings (prompt ids the suite lacks). Other
    targets: nothing to check."""
    if not isinstance(target, ReplayTarget):
        return []
    found = target.check_suite(selected, suite)
    errors = found.errors(target.path, target.config.min_coverage)
    if errors:
        raise TargetConfigError("; ".join(errors))
    return found.warnings(target.path)


def normalise_prompt(text: str) -> str:
    """Case, Unicode form and whitespace do not distinguish two prompts."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def load_recording(path: Path, match_on: str) -> list[RecordedAnswer]:
    """Read and validate a JSONL, CSV or Parquet recording; one error lists all bad rows."""
    rows = _read_rows(path)
    answers: list[RecordedAnswer] = []
    issues: list[str] = []
    for position, row in rows:
        answer, row_issues = _parse_row(row, position, match_on)
        issues.extend(row_issues)
        if answer is not None:
            answers.append(answer)
    if not rows and not issues:
        issues.append("the recording has no rows")
    if issues:
        shown = issues[:MAX_REPORTED_ISSUES]
        more = len(issues) - len(shown)
        lines = [*shown, f"... and {more} more"] if more else shown
        raise TargetConfigError(
            f"recording {path}: {len(issues)} problem(s):\n" + "\n".join(f"  - {i}" for i in lines)
        )
    return answers


def _read_rows(path: Path) -> list[tuple[str, Any]]:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        rows: list[tuple[str, Any]] = []
        for number, line in enumerate(_text(path).splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append((f"line {number}", json.loads(line)))
            except json.JSONDecodeError as exc:
                rows.append((f"line {number}", _Invalid(f"invalid JSON: {exc.msg}")))
        return rows
    if suffix == ".csv":
        return _read_csv(path)
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        return [(f"row {index + 1}", row) for index, row in enumerate(table.to_pylist())]
    raise TargetConfigError(f"recording {path}: unsupported suffix; use .jsonl, .csv or .parquet")


def _text(path: Path) -> str:
    """The recording's text; ``TargetConfigError`` naming the line where it is not UTF-8."""
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise TargetConfigError(
            f"recording {path}, line {line}: not valid UTF-8 (byte {error.start}); save it as UTF-8"
        ) from None


@dataclass(frozen=True)
class _Invalid:
    reason: str


def _read_csv(path: Path) -> list[tuple[str, Any]]:
    """Rows of a CSV recording, parsed strictly.

    A lenient reader lets an unbalanced quote swallow the rows after it into one answer, and
    the prompts those rows answered silently lose their recording. Here a quote that never
    closes, text after a closing quote, or a row whose field count differs from the header's is
    a problem reported with its line numbers.
    """
    rows: list[tuple[str, Any]] = []
    with io.StringIO(_text(path), newline="") as handle:
        reader = csv.reader(handle, strict=True)
        try:
            header = next(reader, None)
            if header is None:
                return rows
            duplicated = sorted({name for name in header if header.count(name) > 1})
            if duplicated:
                rows.append(("line 1", _Invalid(f"header repeats {', '.join(duplicated)}")))
                return rows
            start = reader.line_num + 1
            for record in reader:
                first, end = start, reader.line_num
                start = end + 1
                where = f"line {first}" if first == end else f"lines {first}-{end}"
                if not record:
                    continue  # a blank line
                if len(record) != len(header):
                    hint = " (an unbalanced quote?)" if end > first else ""
                    problem = f"{len(record)} fields where the header has {len(header)}{hint}"
                    rows.append((where, _Invalid(problem)))
                    continue
                rows.append((where, dict(zip(header, record, strict=True))))
        except csv.Error as exc:
            where = f"line {start}"
            if reader.line_num > start:
                where += f" (read on to line {reader.line_num}: an unbalanced quote?)"
            rows.append((where, _Invalid(f"malformed CSV ({exc})")))
    return rows


def _parse_row(row: Any, position: str, match_on: str) -> tuple[RecordedAnswer | None, list[str]]:
    if isinstance(row, _Invalid):
        return None, [f"{position}: {row.reason}"]
    if not isinstance(row, dict):
        return None, [f"{position}: a row must be an object, got {type(row).__name__}"]
    issues: list[str] = []
    values = {key: _blank_to_none(value) for key, value in row.items()}

    def text(column: str) -> str | None:
        value = values.get(column)
        if value is None or isinstance(value, str):
            return value
        if column == "prompt_id" and isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        issues.append(f"{position}: column {column!r} must be text, got {type(value).__name__}")
        return None

    response = row.get("response")  # "" is a valid (empty) recorded answer
    if not isinstance(response, str):
        got = "nothing" if response is None else type(response).__name__
        issues.append(f"{position}: column 'response' must be text, got {got}")
    prompt_id, prompt, model = text("prompt_id"), text("prompt"), text("model")
    if match_on == "prompt_id" and prompt_id is None:
        issues.append(f"{position}: column 'prompt_id' is empty (match_on=prompt_id)")
    if match_on == "prompt" and prompt is None:
        issues.append(f"{position}: column 'prompt' is empty (match_on=prompt)")
    if match_on == "auto" and prompt_id is None and prompt is None:
        issues.append(f"{position}: needs a 'prompt_id' or a 'prompt' to match on")
    turn = _turn(values.get("turn"), position, issues)
    context = _passages(values.get("context"), f"{position}: column 'context'", issues)
    citations = _passages(values.get("citations"), f"{position}: column 'citations'", issues)
    if issues or not isinstance(response, str):
        return None, issues
    return (
        RecordedAnswer(position, response, prompt_id, prompt, turn, model, context, citations),
        [],
    )


def _blank_to_none(value: Any) -> Any:
    if isinstance(value, str) and not value.strip():
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _turn(value: Any, position: str, issues: list[str]) -> int:
    if value is None:
        return 0
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    issues.append(f"{position}: column 'turn' must be a whole number >= 0, got {value!r}")
    return 0


def _passages(value: Any, where: str, issues: list[str]) -> tuple[str, ...] | None:
    """A list of strings, a JSON-encoded list (CSV cells), or one plain string."""
    if value is None:
        return None
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith("["):
            try:
                value = json.loads(stripped)
            except json.JSONDecodeError:
                return (value,)
        else:
            return (value,)
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return tuple(value)
    issues.append(f"{where} must be a list of strings or a JSON list of strings")
    return None
