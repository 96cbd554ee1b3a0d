"""Waivers: known failures accepted until a date, so a gate tracks what is new.

A team that ships with a known, tracked defect still wants the gate to catch the next one. A
waivers file (``waivers:`` in audit.yaml) lists accepted failures, each with a reason and an
expiry date::

    waivers:
      - prompt_id: SUB-001               # a prompt id, or a glob ("ENC-*")
        assertion: must_not_appear       # a failed assertion of that prompt, and/or
        claim: "AWS KMS|Okta"            # hallucinated claims matching this regex (no case)
        reason: bot names vendors; fix tracked in BOT-42
        expires: 2027-03-31              # valid through that day (UTC)

A waived assertion is stored as passed, its detail starting ``waived until <date> (<reason>)``,
and a waived claim is left out of the risk and the hallucination count; both are listed in the
CLI output, ``--json`` and the ``waivers`` gate's detail. An **expired** waiver waives nothing
and fails the ``waivers`` gate, so an accepted defect cannot quietly become permanent.

A waiver must name prompts of the audited suite (a typo would waive nothing, silently), and a
catch-all (a ``prompt_id`` that covers every prompt, or a ``claim`` that matches any claim)
must say so with ``all: true``: ``prompt_id: "*"`` with ``claim: ".*"`` waives every
hallucination of the audit. Every problem names the file, the line and the entry.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import yaml

from audit_pipeline.assertions.assertion_outcome import ASSERTION_NAMES
from audit_pipeline.records.assertions import AssertionRow, CheckedClaim
from audit_pipeline.scoring.rules import HALLUCINATED
from audit_pipeline.yaml_keys import DuplicateKeyError, load_unique_keys, yaml_error_where

FIELDS = ("prompt_id", "assertion", "claim", "reason", "expires", "all")
TurnKey = tuple[str, int]
# Unrelated claims: a pattern that matches every one of them matches any claim.
_PROBES = ("a", "Z", "99.9%", "We use AWS KMS.", "Backups are kept for 35 days.", "Ja, gern.")


class WaiverError(ValueError):
    """The waivers file is unusable; the message names the file, the entry and the field."""


@dataclass(frozen=True)
class Waiver:
    prompt_id: str
    reason: str
    expires: dt.date
    assertion: str | None = None
    claim: re.Pattern[str] | None = None
    where: str = ""
    covers_all: bool = False  # ``all: true``: a catch-all on purpose

    def expired(self, today: dt.date) -> bool:
        return today > self.expires

    def covers_prompt(self, prompt_id: str) -> bool:
        return fnmatchcase(prompt_id, self.prompt_id)

    def describe(self) -> str:
        what = self.assertion or f"claims /{self.claim.pattern if self.claim else ''}/"
        return f"{self.prompt_id} {what} (until {self.expires}: {self.reason})"


def _entry_lines(text: str) -> list[tuple[int, dict[str, int]]]:
    """Per entry of the waivers list, its line and the line of each of its fields."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return []
    if isinstance(root, yaml.MappingNode):
        root = next((v for k, v in root.value if getattr(k, "value", None) == "waivers"), None)
    if not isinstance(root, yaml.SequenceNode):
        return []
    lines = []
    for item in root.value:
        fields = (
            {str(key.value): key.start_mark.line + 1 for key, _ in item.value}
            if isinstance(item, yaml.MappingNode)
            else {}
        )
        lines.append((item.start_mark.line + 1, fields))
    return lines


def _locator(
    path: str, index: int, line: int, field_lines: Mapping[str, int]
) -> Callable[[str | None], str]:
    """Where an entry (or one of its fields) is: ``waivers.yaml, line 7: waivers[2], field
    'claim'``."""

    def where(field: str | None) -> str:
        at = field_lines.get(field, line) if field else line
        return f"{path}, line {at}: waivers[{index}]" + (f", field '{field}'" if field else "")

    return where


def load_waivers(path: Path, prompt_ids: Collection[str] | None = None) -> list[Waiver]:
    """The waivers of ``path``; with ``prompt_ids`` (the suite's), each must name some of them
    and a waiver over all of them must say ``all: true``."""
    if not path.is_file():
        raise WaiverError(
            f"waivers file {path}: {'is a directory' if path.exists() else 'not found'}"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        line = error.object[: error.start].count(b"\n") + 1
        raise WaiverError(f"waivers file {path}, line {line}: not valid UTF-8") from None
    try:
        data = load_unique_keys(text)
    except DuplicateKeyError as error:
        raise WaiverError(f"waivers file {path}: {error}") from None
    except yaml.YAMLError as error:
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise WaiverError(
            f"waivers file {path}: YAML syntax error{yaml_error_where(error)}: {problem}"
        ) from None
    entries = data.get("waivers") if isinstance(data, dict) else data
    if data is None:
        return []
    if not isinstance(entries, list):
        raise WaiverError(f"waivers file {path}: a list of waivers, or 'waivers:' with one")
    lines = _entry_lines(text)
    problems: list[str] = []
    waivers = []
    for index, entry in enumerate(entries):
        line, field_lines = lines[index] if index < len(lines) else (0, {})
        where = _locator(f"{path}", index, line, field_lines)
        waiver = _parse(entry, where, problems)
        if waiver is not None:
            problems.extend(_suite_problems(waiver, prompt_ids, where))
            waivers.append(waiver)
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise WaiverError("; ".join(problems[:3]) + more)
    return waivers


def _matches_any_claim(pattern: re.Pattern[str] | None) -> bool:
    return pattern is not None and all(pattern.search(probe) for probe in _PROBES)


def _suite_problems(
    waiver: Waiver, prompt_ids: Collection[str] | None, where: Callable[[str | None], str]
) -> list[str]:
    """A waiver that names no prompt of the suite, or covers all without ``all: true``."""
    problems = []
    covered = [p for p in prompt_ids or () if waiver.covers_prompt(p)]
    if prompt_ids is not None and not covered:
        problems.append(f"{where('prompt_id')}: {waiver.prompt_id!r} names no prompt of the suite")
    every_prompt = set(waiver.prompt_id) <= {"*"} or (
        prompt_ids is not None and len(prompt_ids) > 1 and len(covered) == len(prompt_ids)
    )
    if not waiver.covers_all and (every_prompt or _matches_any_claim(waiver.claim)):
        what = "every prompt" if every_prompt else "any claim"
        field = "prompt_id" if every_prompt else "claim"
        problems.append(
            f"{where(field)}: covers {what}; a catch-all needs 'all: true' (and its reason)"
        )
    return problems


def _parse(entry: Any, where: Callable[[str | None], str], problems: list[str]) -> Waiver | None:
    if not isinstance(entry, dict):
        problems.append(f"{where(None)}: a waiver is a mapping of {', '.join(FIELDS)}")
        return None
    before = len(problems)
    for key in entry:
        if key not in FIELDS:
            problems.append(f"{where(str(key))}: unknown field; allowed: {', '.join(FIELDS)}")
    for name in ("prompt_id", "reason"):
        if not isinstance(entry.get(name), str) or not entry[name].strip():
            problems.append(f"{where(name)}: required, a non-empty string")
    expires = entry.get("expires")
    if isinstance(expires, str):
        with contextlib.suppress(ValueError):
            expires = dt.date.fromisoformat(expires)
    if not isinstance(expires, dt.date) or isinstance(expires, dt.datetime):
        problems.append(f"{where('expires')}: required, a date (YYYY-MM-DD)")
    covers_all = entry.get("all", False)
    if not isinstance(covers_all, bool):
        problems.append(f"{where('all')}: true or false")
    assertion, claim = entry.get("assertion"), entry.get("claim")
    if assertion is None and claim is None:
        problems.append(f"{where(None)}: name the failure: 'assertion' and/or 'claim'")
    if assertion is not None and assertion not in ASSERTION_NAMES:
        problems.append(
            f"{where('assertion')}: {assertion!r} is not one of {', '.join(ASSERTION_NAMES)}"
        )
    pattern = None
    if claim is not None:
        try:
            pattern = re.compile(str(claim), re.IGNORECASE) if str(claim).strip() else None
        except re.error as error:
            problems.append(f"{where('claim')}: invalid regular expression ({error})")
        if pattern is None and not str(claim).strip():
            problems.append(f"{where('claim')}: must not be blank (it would match every claim)")
    if len(problems) > before or not isinstance(expires, dt.date):
        return None
    return Waiver(
        entry["prompt_id"],
        entry["reason"],
        expires,
        assertion,
        pattern,
        where(None),
        covers_all is True,
    )


@dataclass(frozen=True)
class WaiverStatus:
    """What the waivers did for one audit."""

    active: tuple[Waiver, ...]
    expired: tuple[Waiver, ...]
    applied: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "active": len(self.active),
            "expired": [w.describe() for w in self.expired],
            "applied": list(self.applied),
        }


def split(waivers: Iterable[Waiver], today: dt.date) -> WaiverStatus:
    waivers = list(waivers)
    return WaiverStatus(
        tuple(w for w in waivers if not w.expired(today)),
        tuple(w for w in waivers if w.expired(today)),
    )


def waive_rows(
    rows: Sequence[AssertionRow], active: Sequence[Waiver]
) -> tuple[list[AssertionRow], list[dict[str, Any]]]:
    """Failed rows an active waiver names become passed rows that say they were waived."""
    out, applied = [], []
    for row in rows:
        waiver = next(
            (w for w in active if w.assertion == row.assertion and w.covers_prompt(row.prompt_id)),
            None,
        )
        if row.passed or waiver is None:
            out.append(row)
            continue
        out.append(
            replace(
                row,
                passed=True,
                detail=f"waived until {waiver.expires} ({waiver.reason}): {row.detail}",
                citation_errors=0,
            )
        )
        applied.append(
            {
                "prompt_id": row.prompt_id,
                "turn": row.turn,
                "assertion": row.assertion,
                "detail": row.detail,
                "reason": waiver.reason,
                "expires": str(waiver.expires),
            }
        )
    return out, applied


def waive_claims(
    claims: Mapping[TurnKey, Sequence[CheckedClaim]], active: Sequence[Waiver]
) -> tuple[dict[TurnKey, list[str]], list[dict[str, Any]]]:
    """Verdict labels per turn without the hallucinated claims an active waiver names."""
    labels: dict[TurnKey, list[str]] = {}
    applied = []
    for (prompt_id, turn), found in claims.items():
        kept = []
        for claim in found:
            waiver = next(
                (
                    w
                    for w in active
                    if w.claim is not None
                    and w.covers_prompt(prompt_id)
                    and w.claim.search(claim.text)
                ),
                None,
            )
            if waiver is not None and claim.label in HALLUCINATED:
                applied.append(
                    {
                        "prompt_id": prompt_id,
                        "turn": turn,
                        "claim": claim.text,
                        "label": claim.label,
                        "reason": waiver.reason,
                        "expires": str(waiver.expires),
                    }
                )
            elif claim.label is not None:
                kept.append(claim.label)
        labels[(prompt_id, turn)] = kept
    return labels, applied
