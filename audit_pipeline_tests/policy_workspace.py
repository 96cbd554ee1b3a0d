"""A small self-contained audit workspace: three short policies, five recorded answers about
them (one repeats a fact wrongly), a suite and an ``audit.yaml`` whose every output lives under
the workspace. Shared by the tests that run whole Dagster jobs on it (re-verification after a
vault edit, batches in several processes); small enough for a full audit in seconds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from audit_pipeline_tests.helpers import shared_storage
from benchmarks.chat_server import ReceivedRequest, ServerReply
from benchmarks.reaudit_workspace import write_replay_workspace

DOCUMENTS = {
    "retention.md": """# Data Retention Policy

## Customer records

Customer records are retained for 90 days after the contract ends and then deleted.

## Backups

Encrypted backups expire after 35 days and are stored in a second region.
""",
    "access.md": """# Access Control Policy

## Leavers

All access of a leaver is revoked within 4 hours of the termination time in the HR system.

## Reviews

Managers review the access rights of their team every quarter.
""",
    "encryption.md": """# Encryption Standard

## Transport

Connections require TLS 1.2 or higher and TLS 1.3 is preferred.

## Keys

Key encryption keys are rotated automatically every 12 months.
""",
}
ANSWERS = {
    "RET-1": "Customer records are retained for 90 days after the contract ends and then deleted.",
    "ACC-1": "All access of a leaver is revoked within 4 hours of the termination time.",
    "ACC-2": "Managers review the access rights of their team every quarter.",
    "ENC-1": "Connections require TLS 1.2 or higher.",
    "ENC-2": "Key encryption keys are rotated automatically every 6 months.",
}


def write_policy_workspace(root: Path, **detection: Any) -> Path:
    """Write the workspace under ``root`` and return its ``audit.yaml``; ``detection`` adds
    settings to its ``detection:`` section (two evidence passages per claim by default, so
    each answer's evidence comes from its own policy)."""
    vault = root / "vault"
    vault.mkdir(parents=True)
    for name, text in DOCUMENTS.items():
        (vault / name).write_text(text)
    prompts = [
        {"id": pid, "category": pid.split("-")[0].lower(), "prompt": f"Question {pid}?"}
        for pid in ANSWERS
    ]
    records = [
        {"prompt_id": pid, "prompt": f"Question {pid}?", "response": text}
        for pid, text in ANSWERS.items()
    ]
    return write_replay_workspace(
        root,
        prompts,
        records,
        detection={"evidence_top_k": 2, **detection},
        storage=shared_storage(root),
    )


def prompt_id_of(request: ReceivedRequest) -> str:
    """The prompt id a request of the workspace's ``bot`` target asks about."""
    return str(request.json()["prompt"]).removeprefix("Question ").rstrip("?")


def policy_answer(request: ReceivedRequest) -> ServerReply:
    """The recorded answer to the prompt a ``bot`` request asks (the replay's, over HTTP)."""
    return ServerReply(body={"answer": ANSWERS[prompt_id_of(request)]})


def use_http_bot(config: Path, url: str, **target: Any) -> Path:
    """Make the workspace audit a chat bot at ``url`` (target ``bot``, one call at a time)
    instead of its recording: a test's server decides what it answers, and when."""
    settings = yaml.safe_load(config.read_text())
    settings["targets"]["bot"] = {
        "type": "http",
        "url": url,
        "answer_path": "$.answer",
        "concurrency": 1,
        "timeout_s": 60,
        "max_retries": 0,
        **target,
    }
    settings["defaults"]["target"] = "bot"
    config.write_text(yaml.safe_dump(settings, sort_keys=False))
    return config
