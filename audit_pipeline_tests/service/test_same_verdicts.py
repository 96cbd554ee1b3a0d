"""One evidence path (issue 30, item 5): an answer audited in a batch and the same answer sent
to ``POST /validate`` (the real HTTP API on 127.0.0.1) get the same verdicts, claim by claim:
label, probability and the deciding stage. Once without context (the vault is searched and
the claim's names, identifiers and dates looked up), once with the context the answer came
from (a recording's logged context; the sources given to ``/validate``)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from dagster import DagsterInstance

from audit_pipeline.config import load_config
from audit_pipeline.defs.graph import build_definitions
from audit_pipeline.warehouse.store import Warehouse
from audit_pipeline_tests.policy_workspace import ANSWERS, DOCUMENTS
from audit_pipeline_tests.service.servers import running_api
from benchmarks.reaudit_workspace import write_replay_workspace

pytestmark = pytest.mark.slow

# One answer cites a vault fact and states a number the vault does not; another comes with a
# context that holds half of what it says (the other half is in the vault).
EXTRA = {
    "MIX-1": (
        "Customer records are retained for 90 days after the contract ends. "
        "Encrypted backups expire after 30 days and are stored by Okta.",
        None,
    ),
    "CTX-1": (
        "Connections require TLS 1.2 or higher. Key encryption keys are rotated every 12 months.",
        ["Connections require TLS 1.2 or higher and TLS 1.3 is preferred."],
    ),
}


def _workspace(root: Path) -> Path:
    vault = root / "vault"
    vault.mkdir(parents=True)
    for name, text in DOCUMENTS.items():
        (vault / name).write_text(text)
    answers = {pid: (text, None) for pid, text in ANSWERS.items()} | EXTRA
    prompts = [{"id": pid, "category": "policy", "prompt": f"Question {pid}?"} for pid in answers]
    records = [
        {"prompt_id": pid, "prompt": f"Question {pid}?", "response": text}
        | ({"context": context} if context else {})
        for pid, (text, context) in answers.items()
    ]
    return write_replay_workspace(root, prompts, records, detection={"evidence_top_k": 2})


def test_an_answer_gets_the_same_verdicts_in_an_audit_and_from_validate(tmp_path: Path) -> None:
    config_path = _workspace(tmp_path / "work")
    (tmp_path / "dagster").mkdir()
    result = (
        build_definitions(config_path)
        .resolve_job_def("full_audit")
        .execute_in_process(
            partition_key="recorded",
            instance=DagsterInstance.local_temp(str(tmp_path / "dagster")),
        )
    )
    assert result.success
    warehouse = Warehouse(load_config(config_path).duckdb_path)
    audited = warehouse.query(
        "SELECT c.prompt_id, c.text, v.label, v.probability, v.decided_by FROM verdicts v "
        "JOIN claims c USING (audit_id, claim_id) ORDER BY c.prompt_id, c.start_char"
    )
    answers = {pid: text for pid, text in ANSWERS.items()} | {k: v[0] for k, v in EXTRA.items()}
    compared = 0
    with running_api(config_path) as api:
        for prompt_id, answer in answers.items():
            context = EXTRA.get(prompt_id, (None, None))[1]
            body = {"question": f"Question {prompt_id}?", "answer": answer}
            if context:
                body["sources"] = context
            reply = httpx.post(f"{api.url}/validate", json=body, timeout=120)
            assert reply.status_code == 200, reply.text
            validated = [
                (c["text"], c["label"], c["probability"], c["decided_by"])
                for c in reply.json()["claims"]
            ]
            rows = audited[audited.prompt_id == prompt_id]
            expected = [(r.text, r.label, r.probability, r.decided_by) for r in rows.itertuples()]
            assert validated == expected, prompt_id
            compared += len(expected)
    assert compared >= len(answers) + 2
    labels = set(audited.label)
    assert {"supported", "contradicted"} <= labels or {"supported", "unsupported"} <= labels
