from __future__ import annotations

import itertools
from datetime import UTC, datetime

from audit_pipeline.vault.chunking import chunk_document, chunk_id, split_sections
from audit_pipeline.vault.documents import VaultDocument, content_hash

DOC = """# Encryption Standard

Scope text before any subsection.

## Key Management

Keys rotate every 12 months.

### Hardware Security Modules

Keys live in an HSM.

```bash
# not a heading, inside a code fence
echo ok
```

## Transport

TLS 1.3 everywhere.
"""


def _doc(text: str, doc_id: str = "enc.md") -> VaultDocument:
    return VaultDocument(
        doc_id=doc_id,
        title="Encryption Standard",
        content_hash=content_hash(text),
        size_bytes=len(text.encode()),
        modified_at=datetime.now(UTC),
        text=text,
    )


def test_chunks_know_their_section_path_and_map_back_exactly() -> None:
    chunks = chunk_document(_doc(DOC))
    paths = [c.section_path for c in chunks]
    assert paths == [
        ("Encryption Standard",),
        ("Encryption Standard", "Key Management"),
        ("Encryption Standard", "Key Management", "Hardware Security Modules"),
        ("Encryption Standard", "Transport"),
    ]
    for chunk in chunks:
        assert DOC[chunk.start : chunk.end] == chunk.text
        assert chunk.doc_id == "enc.md"
        assert chunk.chunk_id == chunk_id("enc.md", chunk.text)
    hsm = chunks[2]
    assert hsm.text.startswith("### Hardware Security Modules")
    assert "# not a heading" in hsm.text  # the fenced comment stayed in its section
    assert hsm.section == "Encryption Standard > Key Management > Hardware Security Modules"
    assert hsm.embedding_text.startswith(f"{hsm.section}\n### Hardware")


def test_heading_only_sections_produce_no_chunk() -> None:
    text = "# Title\n\n## Empty Parent\n\n### Child\n\nBody text.\n"
    chunks = chunk_document(_doc(text))
    assert [c.section_path for c in chunks] == [("Title", "Empty Parent", "Child")]


def test_long_sections_are_windowed_with_overlap() -> None:
    sentences = [f"Sentence number {i} states fact {i}." for i in range(200)]  # 1000 words
    text = "# Long\n\n" + " ".join(sentences) + "\n"
    chunks = chunk_document(_doc(text), target_words=100, overlap_words=20)
    assert len(chunks) > 9
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.word_count <= 100
    for previous, following in itertools.pairwise(chunks):
        overlap_words = len(text[following.start : previous.end].split())
        assert 15 <= overlap_words <= 25  # ~20 words shared, cut at sentence ends
        assert previous.text.endswith(".")
    covered = set()
    for chunk in chunks:
        covered.update(range(chunk.start, chunk.end))
    body_start = text.index("Sentence")
    assert set(range(body_start, len(text.rstrip()))) <= covered  # nothing dropped


def test_identical_text_twice_in_one_file_gets_distinct_ids() -> None:
    text = "# A\n\nSame words.\n\n# B\n\nOther.\n"
    sections = split_sections(text)
    assert len(sections) == 2
    repeated = "## X\n\nSame.\n\n" * 2
    chunks = chunk_document(_doc("# T\n\n" + repeated))
    assert len({c.chunk_id for c in chunks}) == len(chunks) == 2
