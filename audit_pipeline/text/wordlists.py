"""Word lists as package data: plain-text files a reader or a team can see and edit.

The verifier's judgements rest on lists of words (negations, antonym pairs, hedges, month
names, number words ...). Kept as literals in the modules that use them, they were hard to
find, to review and to extend; here each list is one file, ``audit_pipeline/<package>/words/
<name>.txt``, read once per process through ``importlib.resources`` (so it works from a wheel
as well as from a checkout). The files are covered by the verifier's identity digest
(``verification/digests.py`` hashes every ``*.txt`` of the stage packages), so an edited list
carries no old verdict over.

The format, one entry per line:

- blank lines and lines whose first non-blank character is ``#`` are ignored (a file starts
  with a comment that says what the list is for); there are no comments after an entry;
- ``words``: each line is one entry, a word or phrase, surrounding blanks stripped;
- ``groups``: each line is one group, its members separated by ``|``
  (``us | usa | united states``);
- ``pairs``: each line maps a key to a value with ``->`` (``quarterly -> 3 month``); a key
  may appear once.

A missing file, a line in the wrong shape or a file without entries raises
``WordListError`` naming the file (and the line), at import time of the module that reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib.resources import files
from typing import Any, TypeVar, overload

GROUP_SEPARATOR = "|"
PAIR_SEPARATOR = "->"
_ROOT = "audit_pipeline"
T = TypeVar("T")


class WordListError(ValueError):
    """A word-list file is missing or malformed; the message names the file."""


def location(package: str, name: str) -> str:
    """Where the list ``name`` of ``package`` lives, as written in error messages."""
    return f"{_ROOT}/{package}/words/{name}.txt"


@cache
def entries(package: str, name: str) -> tuple[str, ...]:
    """The entries of a list in file order (comments and blank lines left out)."""
    return tuple(text for _, text in _lines(package, name))


def words(package: str, name: str) -> frozenset[str]:
    """A list read as a set of words or phrases."""
    return _words(package, name)


def sequence(package: str, name: str) -> tuple[str, ...]:
    """A list whose order matters (a position stands for a value, a regex alternation)."""
    return entries(package, name)


def groups(package: str, name: str, size: int | None = None) -> tuple[tuple[str, ...], ...]:
    """A list of groups (``a | b | c`` per line), in file order; ``size``: every group must
    have exactly that many members (2 for a list of pairs such as antonyms)."""
    return _groups(package, name, size)


@overload
def pairs(package: str, name: str) -> dict[str, str]: ...
@overload
def pairs(package: str, name: str, value: Callable[[str], T]) -> dict[str, T]: ...
def pairs(package: str, name: str, value: Callable[[str], Any] = str) -> dict[str, Any]:
    """A list of ``key -> value`` lines as a mapping in file order (a fresh dict each call);
    ``value`` reads each value (``int``: "two -> 2"), a ``ValueError`` naming the line."""
    out: dict[str, Any] = {}
    for number, key, text in _pairs(package, name):
        try:
            out[key] = value(text)
        except ValueError as exc:
            line = f"{key} {PAIR_SEPARATOR} {text}"
            raise _malformed(package, name, number, line, str(exc)) from exc
    return out


@cache
def _words(package: str, name: str) -> frozenset[str]:
    return frozenset(entries(package, name))


@cache
def _groups(package: str, name: str, size: int | None) -> tuple[tuple[str, ...], ...]:
    out: list[tuple[str, ...]] = []
    for number, text in _lines(package, name):
        members = tuple(member.strip() for member in text.split(GROUP_SEPARATOR))
        if len(members) < 2 or not all(members):
            raise _malformed(package, name, number, text, f"expected 'a {GROUP_SEPARATOR} b'")
        if size is not None and len(members) != size:
            raise _malformed(package, name, number, text, f"expected {size} members")
        out.append(members)
    return tuple(out)


@cache
def _pairs(package: str, name: str) -> tuple[tuple[int, str, str], ...]:
    """(line number, key, value) of each line, keys checked to be unique."""
    out: list[tuple[int, str, str]] = []
    seen: set[str] = set()
    for number, text in _lines(package, name):
        parts = [part.strip() for part in text.split(PAIR_SEPARATOR)]
        if len(parts) != 2 or not all(parts):
            raise _malformed(package, name, number, text, f"expected 'key {PAIR_SEPARATOR} value'")
        key, value = parts
        if key in seen:
            raise _malformed(package, name, number, text, f"key {key!r} given twice")
        seen.add(key)
        out.append((number, key, value))
    return tuple(out)


@cache
def _lines(package: str, name: str) -> tuple[tuple[int, str], ...]:
    """(line number, text) of each entry line of the file."""
    resource = files(_ROOT) / package / "words" / f"{name}.txt"
    try:
        content = resource.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise WordListError(f"word list {location(package, name)} not found") from exc
    except UnicodeDecodeError as exc:
        raise WordListError(f"word list {location(package, name)} is not UTF-8: {exc}") from exc
    lines = tuple(
        (number, line.strip())
        for number, line in enumerate(content.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    )
    if not lines:
        raise WordListError(f"word list {location(package, name)} has no entries")
    return lines


def _malformed(package: str, name: str, number: int, text: str, problem: str) -> WordListError:
    return WordListError(f"word list {location(package, name)}, line {number}: {problem}: {text!r}")
