"""The word lists the verifier reads are package data files (``audit_pipeline/*/words/*.txt``):
every one loads, says something, repeats nothing and is read by the code; a missing or
malformed one fails loudly, naming the file."""

from __future__ import annotations

from collections import Counter
from importlib.resources import files
from pathlib import Path

import pytest

from audit_pipeline.specifics.measures import FREQUENCY_WORDS, PERIOD_NOUNS, period
from audit_pipeline.text import wordlists
from audit_pipeline.text.wordlists import WordListError

PACKAGES = ("verification", "specifics", "text")
SOURCE = Path(str(files("audit_pipeline")))


def _lists() -> list[tuple[str, str]]:
    found = [
        (package, path.stem)
        for package in PACKAGES
        for path in sorted((SOURCE / package / "words").glob("*.txt"))
    ]
    assert found, "no word-list files found"
    return found


def _kind(package: str, name: str) -> str:
    lines = wordlists.entries(package, name)
    if all(wordlists.PAIR_SEPARATOR in line for line in lines):
        return "pairs"
    if all(wordlists.GROUP_SEPARATOR in line for line in lines):
        return "groups"
    return "words"


@pytest.mark.parametrize(("package", "name"), _lists())
def test_every_word_list_loads_says_something_and_repeats_nothing(package: str, name: str) -> None:
    lines = wordlists.entries(package, name)
    assert lines, f"{wordlists.location(package, name)} is empty"
    repeated = [line for line, count in Counter(lines).items() if count > 1]
    assert not repeated, f"{wordlists.location(package, name)} repeats {repeated}"
    kind = _kind(package, name)
    if kind == "pairs":
        assert len(wordlists.pairs(package, name)) == len(lines)
    elif kind == "groups":
        for group in wordlists.groups(package, name):
            assert len(set(group)) == len(group), f"{wordlists.location(package, name)}: {group}"
    else:
        assert len(wordlists.words(package, name)) == len(lines)


@pytest.mark.parametrize(("package", "name"), _lists())
def test_every_word_list_is_read_by_the_code(package: str, name: str) -> None:
    """A file no module reads would be edited in vain."""
    call = f'("{package}", "{name}"'
    readers = [
        path
        for path in SOURCE.rglob("*.py")
        if "__pycache__" not in path.parts and call in path.read_text(encoding="utf-8")
    ]
    assert readers, f"no module reads {wordlists.location(package, name)}"


def test_frequency_and_period_words_name_units_of_time() -> None:
    for word, (count, unit) in {**FREQUENCY_WORDS, **PERIOD_NOUNS}.items():
        assert count > 0 and period(count, unit) > 0, word


def test_lists_keep_their_file_order_and_skip_comments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _fake_package(tmp_path, monkeypatch)
    _write(tmp_path, package, "ordered", "# a comment\n\n  third \nfirst\n  # indented comment\n")
    _write(tmp_path, package, "grouped", "a | b | c\n# two\nd|e\n")
    _write(tmp_path, package, "mapped", "two -> 2\none -> 1\n")
    assert wordlists.sequence(package, "ordered") == ("third", "first")
    assert wordlists.words(package, "ordered") == frozenset({"first", "third"})
    assert wordlists.groups(package, "grouped") == (("a", "b", "c"), ("d", "e"))
    assert list(wordlists.pairs(package, "mapped", int).items()) == [("two", 2), ("one", 1)]


@pytest.mark.parametrize(
    ("content", "call", "problem"),
    [
        ("a | b\nc\n", lambda p: wordlists.groups(p, "bad"), "line 2"),
        ("a | b | c\n", lambda p: wordlists.groups(p, "bad", size=2), "line 1"),
        ("a | | c\n", lambda p: wordlists.groups(p, "bad"), "line 1"),
        ("one -> 1\ntwo 2\n", lambda p: wordlists.pairs(p, "bad"), "line 2"),
        ("one -> 1\none -> 2\n", lambda p: wordlists.pairs(p, "bad"), "given twice"),
        ("one -> 1\ntwo -> too\n", lambda p: wordlists.pairs(p, "bad", int), "line 2"),
        ("# only a comment\n\n", lambda p: wordlists.words(p, "bad"), "no entries"),
    ],
    ids=[
        "group-without-separator",
        "group-of-the-wrong-size",
        "group-with-an-empty-member",
        "pair-without-arrow",
        "key-given-twice",
        "value-not-a-number",
        "only-comments",
    ],
)
def test_a_malformed_list_is_refused_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str, call, problem: str
) -> None:
    package = _fake_package(tmp_path, monkeypatch)
    _write(tmp_path, package, "bad", content)
    with pytest.raises(WordListError) as raised:
        call(package)
    assert f"audit_pipeline/{package}/words/bad.txt" in str(raised.value)
    assert problem in str(raised.value)


def test_a_missing_list_is_refused_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _fake_package(tmp_path, monkeypatch)
    with pytest.raises(WordListError, match=f"audit_pipeline/{package}/words/absent.txt"):
        wordlists.words(package, "absent")


def _fake_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Word lists read from ``tmp_path`` instead of the installed package; a package name of
    its own per test, since lists are read once per process."""
    monkeypatch.setattr(wordlists, "files", lambda _root: tmp_path)
    return f"fake_{tmp_path.name}"


def _write(tmp_path: Path, package: str, name: str, content: str) -> None:
    folder = tmp_path / package / "words"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.txt").write_text(content, encoding="utf-8")
