from __future__ import annotations

import re

import pytest

from audit_pipeline.targets.jsonpath import JsonPathError, get_path, parse_path

DOC = {"choices": [{"message": {"content": "hi"}}], "0": "zero-key", "a.b": 1}


@pytest.mark.parametrize(
    "path",
    ["choices.0.message.content", "$.choices[0].message.content", "$choices[0]['message'].content"],
)
def test_equivalent_spellings_reach_the_same_value(path: str) -> None:
    assert get_path(DOC, path) == "hi"


def test_numeric_step_on_an_object_is_a_key_and_quoted_keys_may_hold_dots() -> None:
    assert get_path(DOC, "0") == "zero-key"
    assert get_path(DOC, '$["a.b"]') == 1
    assert parse_path("$.x[2].y") == ("x", 2, "y")


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("choices.3", "$.choices is a list of 1, no item '3'"),
        ("choices.0.msg", "$.choices.0 has no key 'msg'"),
        ("choices.0.message.content.x", "is str, not an object or list"),
        ("$", "selects nothing"),
        ("a..b", "cannot read it at character 2"),
    ],
)
def test_errors_name_the_missing_step(path: str, message: str) -> None:
    with pytest.raises(JsonPathError, match=re.escape(message)):
        get_path(DOC, path)
