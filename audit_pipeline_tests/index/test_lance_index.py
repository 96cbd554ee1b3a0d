"""Incremental indexing against a real LanceDB directory and the real embedding model."""

from __future__ import annotations

from pathlib import Path

from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.vault.chunking import chunk_documents
from audit_pipeline.vault.documents import scan_vault
from audit_pipeline_tests.helpers import CountingEmbedder


def _sync(vault: Path, index: VaultIndex):
    chunks = chunk_documents(scan_vault(vault).documents, target_words=120, overlap_words=20)
    return chunks, index.sync(chunks)


def _indexed_ids(index: VaultIndex) -> set[str]:
    rows = index.table().search().select(["chunk_id"]).limit(None).to_arrow()
    return set(rows.column("chunk_id").to_pylist())


def test_add_change_delete_embed_only_what_changed(
    tmp_path: Path, counting_embedder: CountingEmbedder
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "keys.md").write_text(
        "# Keys\n\n## Rotation\n\nKeys rotate every 12 months.\n\n## Storage\n\nIn an HSM.\n"
    )
    (vault / "mfa.md").write_text("# MFA\n\nAll staff use hardware keys.\n")
    index = VaultIndex(tmp_path / "lance", counting_embedder)

    chunks, first = _sync(vault, index)
    assert (first.embedded, first.reused, first.deleted) == (3, 0, 0)
    assert _indexed_ids(index) == {c.chunk_id for c in chunks}

    counting_embedder.texts.clear()
    _, again = _sync(vault, index)
    assert (again.embedded, again.reused, again.deleted) == (0, 3, 0)
    assert counting_embedder.texts == []
    assert again.table_version == first.table_version  # nothing was written

    # Change one section of one file, add a file: only those chunks are embedded.
    (vault / "keys.md").write_text(
        "# Keys\n\n## Rotation\n\nKeys rotate every 6 months.\n\n## Storage\n\nIn an HSM.\n"
    )
    (vault / "new.md").write_text("# Backups\n\nBackups are encrypted.\n")
    chunks, changed = _sync(vault, index)
    assert changed.embedded == 2
    assert changed.deleted == 1  # the old rotation chunk
    assert sorted(t.split("\n", 1)[1] for t in counting_embedder.texts) == sorted(
        [
            "## Rotation\n\nKeys rotate every 6 months.",
            "# Backups\n\nBackups are encrypted.",
        ]
    )
    assert _indexed_ids(index) == {c.chunk_id for c in chunks}

    # Remove a file: its chunks leave the index, nothing is embedded.
    (vault / "mfa.md").unlink()
    counting_embedder.texts.clear()
    chunks, removed = _sync(vault, index)
    assert (removed.embedded, removed.deleted) == (0, 1)
    assert counting_embedder.texts == []
    assert _indexed_ids(index) == {c.chunk_id for c in chunks}
    assert index.count() == 3


def test_moved_chunk_keeps_its_vector_but_gets_new_offsets(
    tmp_path: Path, counting_embedder: CountingEmbedder
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    doc = vault / "policy.md"
    doc.write_text("# Policy\n\n## Reviews\n\nAccess is reviewed quarterly.\n")
    index = VaultIndex(tmp_path / "lance", counting_embedder)
    _sync(vault, index)
    doc.write_text(
        "# Policy\n\nA new introduction.\n\n## Reviews\n\nAccess is reviewed quarterly.\n"
    )
    counting_embedder.texts.clear()
    chunks, report = _sync(vault, index)
    assert report.embedded == 1  # only the new introduction
    assert report.rewritten == 1  # the review chunk moved: metadata rewritten, vector reused
    review = next(c for c in chunks if "quarterly" in c.text)
    row = index.table().search().where(f"chunk_id = '{review.chunk_id}'").limit(1).to_list()[0]
    assert (row["start"], row["end"]) == (review.start, review.end)
    assert doc.read_text()[row["start"] : row["end"]] == row["text"]


def test_changing_the_embedding_model_reembeds_everything(
    tmp_path: Path, counting_embedder: CountingEmbedder
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\nAlpha.\n\n## B\n\nBeta.\n")
    index = VaultIndex(tmp_path / "lance", counting_embedder)
    _sync(vault, index)

    class Renamed(CountingEmbedder):
        @property
        def name(self) -> str:
            return "another-model"

    renamed = Renamed(counting_embedder.inner)
    _, report = _sync(vault, VaultIndex(tmp_path / "lance", renamed))
    assert report.embedded == 2 and len(renamed.texts) == 2
