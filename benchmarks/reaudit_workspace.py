"""A generated audit workspace for the re-audit benchmark: a vault of policy documents, a suite
with one prompt per recorded answer, the recorded answers, and an ``audit.yaml`` whose every
output lives in the workspace.

The documents are templated policy text full of checkable facts (durations, counts, owners);
each recorded answer repeats two or three sentences of one section, a quarter of them with one
number changed, and cites the section. ``change_document`` edits one fact of one document the
way a policy owner would (a retention period from 90 to 180 days), so answers that repeat the
old value become stale.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

TOPICS = (
    "data retention",
    "incident response",
    "vendor management",
    "access review",
    "backup and recovery",
    "change management",
    "encryption key handling",
    "logging and monitoring",
    "vulnerability management",
    "security awareness training",
    "physical security",
    "business continuity",
    "asset inventory",
    "password and authentication",
    "network segmentation",
    "secure development",
    "privacy requests",
    "penetration testing",
    "mobile device use",
    "third-party data sharing",
)
SECTIONS = ("Scope", "Responsibilities", "Timelines", "Records", "Exceptions")
OWNERS = ("the Security Officer", "the IT Director", "the Privacy Lead", "the Head of Platform")
UNITS = ("days", "hours", "months", "weeks")
SUBJECTS = (
    "Requests",
    "Reviews",
    "Reports",
    "Tickets",
    "Findings",
    "Approvals",
    "Audit logs",
    "Snapshots",
)
# The fact the benchmark changes: document 0, first section, first sentence.
CHANGED_DOCUMENT = "policy-00-data-retention.md"


@dataclass(frozen=True)
class Workspace:
    root: Path
    config: Path
    documents: int
    answers: int


def _fact(rng: random.Random, topic: str, index: int) -> str:
    subject = f"{rng.choice(SUBJECTS)} under the {topic} policy (item {index})"
    n = rng.choice((2, 3, 4, 5, 7, 10, 12, 14, 24, 30, 45, 60, 90))
    unit = rng.choice(UNITS)
    kind = rng.randrange(3)
    if kind == 0:
        return f"{subject} are retained for {n} {unit} and then deleted."
    if kind == 1:
        owner = rng.choice(OWNERS)
        return f"{subject} must be completed within {n} {unit} and are checked by {owner}."
    return f"{subject} are reviewed every {n} {unit} by {rng.choice(OWNERS)}."


def _document(rng: random.Random, number: int, topic: str) -> tuple[str, str, dict[str, list[str]]]:
    name = f"policy-{number:02d}-{topic.replace(' ', '-')}.md"
    sections: dict[str, list[str]] = {}
    lines = [f"# {topic.title()} Policy", ""]
    for s, heading in enumerate(SECTIONS):
        facts = [_fact(rng, topic, s * 10 + i) for i in range(5)]
        if number == 0 and s == 0:
            facts[0] = (
                f"Customer records under the {topic} policy are retained for 90 days after "
                "the contract ends and then deleted."
            )
        sections[heading] = facts
        lines += [f"## {heading}", "", " ".join(facts), ""]
    return name, "\n".join(lines), sections


def _edit_number(rng: random.Random, sentence: str) -> str:
    words = sentence.split(" ")
    numbers = [i for i, w in enumerate(words) if w.isdigit()]
    if not numbers:
        return sentence
    i = rng.choice(numbers)
    words[i] = str(int(words[i]) * 2 + 1)
    return " ".join(words)


def build_workspace(
    root: Path, documents: int = 20, answers: int = 500, seed: int = 0
) -> Workspace:
    """Write the workspace under ``root`` (created) and return where its config is."""
    rng = random.Random(seed)
    vault = root / "vault"
    vault.mkdir(parents=True, exist_ok=True)
    docs = []
    for number in range(documents):
        name, text, sections = _document(rng, number, TOPICS[number % len(TOPICS)])
        (vault / name).write_text(text, encoding="utf-8")
        docs.append((name, sections))
    prompts, records = [], []
    for j in range(answers):
        name, sections = docs[j % documents]
        heading = SECTIONS[(j // documents) % len(SECTIONS)]
        facts = sections[heading]
        start = rng.randrange(len(facts) - 2)
        chosen = facts[start : start + rng.choice((2, 3))]
        if j % documents == 0 and heading == SECTIONS[0]:
            chosen = facts[:2]  # every answer on the changed section repeats the changed fact
        elif rng.random() < 0.25:
            k = rng.randrange(len(chosen))
            chosen[k] = _edit_number(rng, chosen[k])
        prompt_id = f"BENCH-{j:04d}"
        question = f"What does the {name.removesuffix('.md')} document say about {heading}? ({j})"
        prompts.append({"id": prompt_id, "category": heading.lower(), "prompt": question})
        answer = " ".join(chosen) + f" [source: {name}#{heading}]"
        records.append({"prompt_id": prompt_id, "prompt": question, "response": answer})
    path = write_replay_workspace(root, prompts, records)
    return Workspace(root, path, documents, answers)


def write_replay_workspace(
    root: Path, prompts: list[dict[str, str]], records: list[dict[str, str]], **sections: Any
) -> Path:
    """The suite, the recorded answers (target ``recorded``) and an ``audit.yaml`` over
    ``root/vault`` whose every output lives under ``root``; ``sections`` are added to it."""
    (root / "suite.yaml").write_text(
        yaml.safe_dump({"name": "suite", "prompts": prompts}, sort_keys=False), encoding="utf-8"
    )
    (root / "answers.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
    )
    config = {
        "vault": {"path": str(root / "vault")},
        "storage": {
            "duckdb_path": str(root / "warehouse" / "audit.duckdb"),
            "lancedb_path": str(root / "warehouse" / "vault.lance"),
        },
        "suites": {"suite": str(root / "suite.yaml")},
        "targets": {"recorded": {"type": "replay", "path": str(root / "answers.jsonl")}},
        "defaults": {"suite": "suite", "target": "recorded"},
        "cache": {"dir": str(root / "cache")},
        "reports": {"dir": str(root / "reports")},
        "observability": {
            "metrics_dir": str(root / "metrics"),
            "log_file": str(root / "logs" / "audit.jsonl"),
        },
        **sections,
    }
    path = root / "audit.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def change_document(workspace: Workspace) -> None:
    """The policy owner's edit: the retention period of the changed fact goes 90 -> 180 days."""
    path = workspace.root / "vault" / CHANGED_DOCUMENT
    text = path.read_text(encoding="utf-8")
    old = "are retained for 90 days after the contract ends"
    if old not in text:
        raise ValueError(f"{path}: the fact to change is not there")
    path.write_text(text.replace(old, "are retained for 180 days after the contract ends"))
