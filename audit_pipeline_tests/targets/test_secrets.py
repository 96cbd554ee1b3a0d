from __future__ import annotations

import pytest

from audit_pipeline.targets import build_target, parse_target_config
from audit_pipeline.targets.base import TargetReply
from audit_pipeline.targets.secrets import (
    REDACTION_MARK,
    redact_reply,
    redactions_in,
    target_secrets,
)


def test_every_copy_in_text_citations_and_context_is_replaced() -> None:
    reply = TargetReply(
        text="key sk-live-123456 and again sk-live-123456",
        citations=("doc.md", "sk-live-123456"),
        context=("ctx sk-live-123456",),
    )
    clean = redact_reply(reply, ("sk-live-123456",))
    assert "sk-live-123456" not in repr(clean)
    assert redactions_in(clean.text) == 2
    assert clean.citations == ("doc.md", REDACTION_MARK)
    assert redact_reply(reply, ()) is reply


def test_http_targets_name_header_values_and_the_variables_inside_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AUDIT_TEST_TOKEN", "tok-abcdef123")
    monkeypatch.setenv("AUDIT_TEST_SHORT", "abc")
    config = parse_target_config(
        "bot",
        {
            "type": "http",
            "url": "http://127.0.0.1:9/chat",
            "answer_path": "$.answer",
            "headers_env": {
                "Authorization": "Bearer ${AUDIT_TEST_TOKEN}",
                "X-Tag": "AUDIT_TEST_SHORT",
            },
        },
    )
    target = build_target("bot", config)
    try:
        # Longest first; too short to redact without mangling answers: left out.
        assert target_secrets(target) == ("Bearer tok-abcdef123", "tok-abcdef123")
    finally:
        target.close()  # type: ignore[attr-defined]
    assert target_secrets(object()) == ()
