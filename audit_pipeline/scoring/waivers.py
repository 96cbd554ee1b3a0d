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
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import yaml

from audit_pipeline.assertions.assertion_outcome import ASSERTION_NAMES, AssertionRow
from audit_pipeline.assertions.denial import CheckedClaim
from audit_pipeline.scoring.rules import HALLUCINATED
from audit_pipeline.yaml_keys import DuplicateKeyError, load_unique_keys

FIELDS = ("prompt_id", "assertion", "claim", "reason", "expires")
TurnKey = tuple[str, int]


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

    def expired(self, today: dt.date) -> bool:
        return today > self.expires

    def covers_prompt(self, prompt_id: str) -> bool:
        return fnmatchcase(prompt_id, self.prompt_id)

    def describe(self) -> str:
        what = self.assertion or f"claims /{self.claim.pattern if self.claim else ''}/"
        return f"{self.prompt_id} {what} (until {self.expires}: {self.reason})"


def load_waivers(path: Path) -> list[Waiver]:
    if not path.is_file():
        raise WaiverError(
            f"waivers file {path}: {'is a directory' if path.exists() else 'not found'}"
        )
    try:
        data = load_unique_keys(path.read_text(encoding="utf-8"))
    except (DuplicateKeyError, yaml.YAMLError) as error:
        raise WaiverError(f"waivers file {path}: {str(error).splitlines()[0]}") from None
    entries = data.get("waivers") if isinstance(data, dict) else data
    if data is None:
        return []
    if not isinstance(entries, list):
        raise WaiverError(f"waivers file {path}: a list of waivers, or 'waivers:' with one")
    problems: list[str] = []
    waivers = [
        w for i, e in enumerate(entries) if (w := _parse(e, f"{path}: waivers[{i}]", problems))
    ]
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise WaiverError("; ".join(problems[:3]) + more)
    return waivers


def _parse(entry: Any, where: str, problems: list[str]) -> Waiver | None:
    if not isinstance(entry, dict):
        problems.append(f"{where}: a waiver is a mapping of {', '.join(FIELDS)}")
        return None
    before = len(problems)
    for key in entry:
        if key not in FIELDS:
            problems.append(f"{where}, field '{key}': unknown field; allowed: {', '.join(FIELDS)}")
    for name in ("prompt_id", "reason"):
        if not isinstance(entry.get(name), str) or not entry[name].strip():
            problems.append(f"{where}, field '{name}': required, a non-empty string")
    expires = entry.get("expires")
    if isinstance(expires, str):
        with contextlib.suppress(ValueError):
            expires = dt.date.fromisoformat(expires)
    if not isinstance(expires, dt.date) or isinstance(expires, dt.datetime):
        problems.append(f"{where}, field 'expires': required, a date (YYYY-MM-DD)")
    assertion, claim = entry.get("assertion"), entry.get("claim")
    if assertion is None and claim is None:
        problems.append(f"{where}: name the failure: 'assertion' and/or 'claim'")
    if assertion is not None and assertion not in ASSERTION_NAMES:
        problems.append(
            f"{where}, field 'assertion': {assertion!r} is not one of {', '.join(ASSERTION_NAMES)}"
        )
    pattern = None
    if claim is not None:
        try:
            pattern = re.compile(str(claim), re.IGNORECASE) if str(claim).strip() else None
        except re.error as error:
            problems.append(f"{where}, field 'claim': invalid regular expression ({error})")
        if pattern is None and not str(claim).strip():
            problems.append(
                f"{where}, field 'claim': must not be blank (it would match every claim)"
            )
    if len(problems) > before or not isinstance(expires, dt.date):
        return None
    return Waiver(entry["prompt_id"], entry["reason"], expires, assertion, pattern, where)


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
