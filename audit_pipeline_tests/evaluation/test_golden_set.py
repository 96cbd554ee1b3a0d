"""The golden set file: its format, and problems reported with their line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit_pipeline.config import AuditConfig, load_config
from audit_pipeline.evaluation.golden import GoldenQuery, GoldenSetError, load_golden
from audit_pipeline.evaluation.sources import golden_queries
from audit_pipeline.vault.documents import scan_vault
from audit_pipeline_tests.helpers import REPO_ROOT, SAMPLE_VAULT, write_audit_config


def _golden_queries(config: AuditConfig, doc_ids: list[str]) -> list[GoldenQuery]:
    return golden_queries(
        config.resolve(config.evaluation.golden_set),
        config.golden_suite_paths(),
        config.collection_policy(),
        doc_ids,
    )


GOLDEN = REPO_ROOT / "data" / "evaluation" / "golden_queries.jsonl"


def _write(path: Path, *rows: object) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows))
    return path


def test_the_shipped_golden_set_covers_every_sample_document_and_collection() -> None:
    config = load_config(REPO_ROOT / "audit.yaml")
    doc_ids = [doc.doc_id for doc in scan_vault(SAMPLE_VAULT).documents]
    queries = _golden_queries(config, doc_ids)
    written = [q for q in queries if q.source.startswith(str(GOLDEN))]

    assert len(written) >= 50
    assert {d for q in written for d in q.expected_doc_ids} == set(doc_ids)
    policy = config.collection_policy()
    assert {policy.collection_of(q.expected_doc_ids[0]) for q in written} == {
        "policies",
        "standards",
        "assurance",
    }
    # Suite prompts with expected_doc_ids join, once each.
    suite = [q for q in queries if q.source.startswith("suite ")]
    assert suite and len({q.query for q in queries}) == len(queries)


def test_every_problem_names_the_line_and_field(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "golden.jsonl",
        {"query": "fine", "expected_doc_ids": ["a.md"]},
        '{"query": "broken",',
        {"query": "", "expected_doc_ids": ["a.md"]},
        {"query": "x", "expected_doc_ids": []},
        {"query": "y", "expected_doc_ids": ["a.md"], "expected_docs": ["b.md"]},
    )
    with pytest.raises(GoldenSetError) as error:
        load_golden(path)

    message = str(error.value)
    assert "\n" not in message
    assert f"{path}:2: invalid JSON" in message
    assert f"{path}:3: field 'query'" in message
    assert f"{path}:4: field 'expected_doc_ids': a non-empty list" in message
    assert "(and 1 more)" in message  # line 5's unknown field


def test_unknown_documents_and_collections_are_errors(tmp_path: Path) -> None:
    golden = _write(
        tmp_path / "golden.jsonl",
        {"query": "q", "expected_doc_ids": ["encryption-standard.md", "missing.md"]},
        {"query": "r", "expected_doc_ids": ["security-faq.md"], "collection": "nope"},
    )
    config = load_config(
        write_audit_config(
            tmp_path, evaluation={"golden_set": str(golden), "include_suites": False}
        )
    )
    doc_ids = [doc.doc_id for doc in scan_vault(SAMPLE_VAULT).documents]
    with pytest.raises(GoldenSetError) as error:
        _golden_queries(config, doc_ids)

    assert "golden.jsonl:1: field 'expected_doc_ids': 'missing.md' is not a vault document" in str(
        error.value
    )
    assert "golden.jsonl:2: field 'collection': 'nope' is not a collection" in str(error.value)
