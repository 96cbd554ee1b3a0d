"""The HTTP API under abuse: refusals before any model loads, no echo, no paths or file content
in errors, 400 for invalid characters, 413 for oversize bodies, long answers capped, 503 with
Retry-After when the pool is full and 504 past the time budget."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from audit_pipeline_tests.helpers import write_audit_config
from audit_pipeline_tests.service.servers import RunningApi, running_api
from audit_pipeline_tests.validation.sample_sources import BACKUP_SOURCES

CAP = 20
# ~100,000 characters, ~1,700 sentences that each make a claim.
LONG_ANSWER = " ".join(
    f"Backups of region {n} are kept for {n % 90 + 1} days." for n in range(2400)
)[:100_000]


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, sample_index_dir: Path
) -> Iterator[RunningApi]:
    root = tmp_path_factory.mktemp("limits")
    config = write_audit_config(
        root,
        sample_index_dir,
        detection={"max_claims_per_answer": CAP},
        service={"max_body_bytes": 6_000_000},
    )
    (root / "notes.txt").write_text("%SECRET directive\n\tpassword: [hunter2\n")
    (root / "keys.yaml").write_text(yaml.safe_dump({"password": "hunter2"}))
    novault = yaml.safe_load(config.read_text())
    novault["vault"] = {"path": str(root / "missing-vault")}
    (root / "novault.yaml").write_text(yaml.safe_dump(novault))
    with running_api(config) as api:
        yield api


def _short(reply: httpx.Response) -> httpx.Response:
    assert len(reply.content) < 2_000, "the error echoed the request"
    return reply


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"question": "   ", "answer": "x"}, 422, "question"),
        ({"question": "q" * 100_001, "answer": "x"}, 422, "question"),
        ({"question": "q", "answer": "a" * 100_001}, 422, "answer"),
        ({"question": "q", "answer": "x", "sources": ["s"] * 51}, 422, "sources"),
        ({"question": "q", "answer": "x", "admin": True}, 422, "admin"),
        ({"question": "what\x00", "answer": "x"}, 400, "question"),
        ({"question": "q", "answer": "x", "sources": ["ok", "\ud800"]}, 400, "sources.1"),
    ],
)
def test_refused_before_any_model_loads_without_echo(
    served: RunningApi, body: dict, status: int, field: str
) -> None:
    raw = json.dumps(body)  # ASCII: JSON may carry an unpaired surrogate as an escape
    headers = {"Content-Type": "application/json"}
    reply = _short(httpx.post(f"{served.url}/validate", content=raw, headers=headers, timeout=30))
    assert reply.status_code == status, reply.text
    detail = reply.json()["detail"]
    if status == 422:
        assert detail[0]["loc"][:2] == ["body", field]
    else:
        assert reply.json()["error"] == "invalid_characters"
        assert detail.startswith(f"{field}: holds an invalid character")
    assert not served.app.state.gateway.service.built


def test_an_oversize_body_is_413_without_echo(served: RunningApi) -> None:
    big = {"question": "q", "answer": "a", "sources": ["x" * 100_000] * 70}
    declared = _short(httpx.post(f"{served.url}/validate", json=big, timeout=30))
    assert declared.status_code == 413
    assert declared.json()["error"] == "too_large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"question": "q", "answer": "'
        for _ in range(70):
            yield b"a" * 100_000
        yield b'"}'

    streamed = _short(
        httpx.post(
            f"{served.url}/validate",
            content=chunks(),
            headers={"Content-Type": "application/json"},
            timeout=30,
        )
    )
    assert streamed.status_code == 413


def test_config_errors_name_no_server_path_and_quote_no_file(
    served: RunningApi, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = str(Path(served.app.state.gateway.service.config_path).parent)
    cases = {
        "notes.txt": (400, "YAML syntax error at line"),
        "keys.yaml": (400, "invalid configuration (1 problem(s))"),
        "novault.yaml": (400, "missing-vault"),
        "vault": (400, "is a directory"),
        "nope.yaml": (404, "nope.yaml"),
        "../outside.yaml": (400, "inside the server's directory"),
        "audit.yaml\x00.txt": (400, "config_path: holds an invalid character"),
    }
    for config_path, (status, said) in cases.items():
        reply = _short(httpx.post(f"{served.url}/evaluate", json={"config_path": config_path}))
        assert reply.status_code == status, (config_path, reply.text)
        assert said in reply.json()["detail"], (config_path, reply.text)
        for leak in (root, "SECRET", "hunter2", "password", "%"):
            assert leak not in reply.text, (config_path, reply.text)


@pytest.mark.slow
def test_a_long_answer_is_capped_at_max_claims_per_answer(served: RunningApi) -> None:
    reply = httpx.post(
        f"{served.url}/validate",
        json={
            "question": "How long are backups kept?",
            "answer": LONG_ANSWER,
            "sources": BACKUP_SOURCES,
        },
        timeout=300,
    )
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert len(body["claims"]) == CAP
    assert any(f"the first {CAP} checked" in note for note in body["notes"])


def test_a_full_pool_answers_503_with_retry_after_and_504_past_the_budget(
    tmp_path: Path, sample_index_dir: Path
) -> None:
    config = write_audit_config(
        tmp_path, sample_index_dir, service={"workers": 1, "queue": 0, "time_budget_s": 0.2}
    )
    body = {
        "question": "How long are backups kept?",
        "answer": LONG_ANSWER,
        "sources": BACKUP_SOURCES,
    }
    with running_api(config) as api:
        first = httpx.post(f"{api.url}/validate", json=body, timeout=60)
        assert first.status_code == 504, first.text
        assert first.json()["error"] == "timed_out"
        assert "service.time_budget_s" in first.json()["detail"]

        replies: list[httpx.Response] = []
        start = threading.Barrier(6)

        def send() -> None:
            start.wait()
            replies.append(httpx.post(f"{api.url}/validate", json=body, timeout=60))

        threads = [threading.Thread(target=send) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert {r.status_code for r in replies} <= {503, 504}
        busy = [r for r in replies if r.status_code == 503]
        assert busy, [r.text for r in replies]
        assert int(busy[0].headers["retry-after"]) >= 1
        assert busy[0].json()["error"] == "busy"
        assert busy[0].json()["detail"].startswith("busy: 1 running, 0 waiting")
        assert httpx.get(f"{api.url}/health").status_code == 200


def test_starlettes_own_refusals_come_in_the_same_shape(served: RunningApi) -> None:
    nested = b"[" * 100_000 + b"]" * 100_000  # too deep for the JSON parser
    headers = {"Content-Type": "application/json"}
    unparsed = _short(httpx.post(f"{served.url}/validate", content=nested, headers=headers))
    assert (unparsed.status_code, unparsed.json()["error"]) == (400, "bad_request")
    wrong_method = _short(httpx.get(f"{served.url}/validate"))
    assert (wrong_method.status_code, wrong_method.json()["error"]) == (405, "method_not_allowed")
    unknown = _short(httpx.get(f"{served.url}/nowhere"))
    assert (unknown.status_code, unknown.json()["error"]) == (404, "not_found")
