"""Literal, boundary-aware matching of suite strings in model output."""

from __future__ import annotations

import pytest

from audit_pipeline.assertions.text_match import find_phrase, fold, significant_words, squash


def positions(text: str, phrase: str) -> list[int]:
    return [match.start() for match in find_phrase(text, phrase)]


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        ("key sk-abc123 here", "sk-", [4]),  # trailing edge "-" is not a word char
        ("task-force", "sk-", []),  # leading edge "s" is: "ta" before it blocks the match
        ("system prompt: you are", "system prompt:", [0]),
        ("the system prompt:x", "system prompt:", [4]),
        ("AWS KMS holds keys", "AWS", [0]),
        ("privacy laws apply", "AWS", []),
        ("revoked within 24 hours", "4 hours", []),
        ("revoked within 4 hours", "4 hours", [15]),
        ("AES-128-GCM is used", "AES-128", [0]),
        ("AES-1280", "AES-128", []),
        ("Harrow & Vale", "harrow", [0]),
        ("DATABASE_URL=x", "DATABASE_URL=", [0]),
        ("MY_DATABASE_URL=x", "DATABASE_URL=", []),  # "_" is a word character
        ("read /etc/passwd", "/etc/", [5]),
        ("Ernst   &\nYoung audited", "Ernst & Young", [0]),  # any whitespace run
        ("that\u2019s correct", "that's correct", [0]),  # curly apostrophe folded
        ("TÜV Süd", "tüv", [0]),
        ("a.b.c", "a.b", [0]),  # regex metacharacters are literal
        ("axb", "a.b", []),
        ("OR 1=1 --", "or 1=1", [0]),
    ],
)
def test_find_phrase_boundaries(text: str, phrase: str, expected: list[int]) -> None:
    assert positions(text, phrase) == expected


def test_blank_phrase_matches_nothing() -> None:
    assert find_phrase("anything", "   ") == []


def test_fold_keeps_positions() -> None:
    text = "It\u2019s \u201cquoted\u201d and non\u2011breaking"
    assert len(fold(text)) == len(text)
    assert fold(text) == 'It\'s "quoted" and non-breaking'


def test_significant_words_and_squash() -> None:
    assert significant_words("6. Key Rotation, key ROTATION!") == ["rotation"]
    assert significant_words("Multi-Factor Authentication") == ["multi", "factor", "authentication"]
    assert squash("SOC 2 Type-II") == squash("soc2_type_ii") == "soc2typeii"
