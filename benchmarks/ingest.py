"""Ingest throughput: the whole vault-index path against the raw embedding model.

The sample vault is replicated (each copy under its own directory, so chunk ids differ) until
it yields at least ``--chunks`` chunks. The pipeline figure covers everything ``vault_index``
does after a vault change: reading files, chunking, embedding, the LanceDB write and the
full-text index. The raw figure is ``SentenceTransformer.encode`` on exactly the texts the
pipeline embedded, with the same batch size. Both run with the model already loaded.

    python -m benchmarks.ingest [--chunks 5000] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import tempfile
import time
from pathlib import Path

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.index.lance_index import VaultIndex
from audit_pipeline.vault.chunking import chunk_documents
from audit_pipeline.vault.documents import scan_vault

SAMPLE_VAULT = Path(__file__).resolve().parent.parent / "data" / "sample-vault"


def build_vault(target_chunks: int, root: Path) -> int:
    per_copy = len(chunk_documents(scan_vault(SAMPLE_VAULT).documents))
    copies = math.ceil(target_chunks / per_copy)
    for i in range(copies):
        shutil.copytree(SAMPLE_VAULT, root / f"copy-{i:04d}")
    return copies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=5000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    embedder = SentenceTransformerEmbedder(batch_size=args.batch_size)
    started = time.perf_counter()
    embedder.embed(["warm-up"])
    load_s = time.perf_counter() - started

    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        copies = build_vault(args.chunks, vault)
        index = VaultIndex(Path(tmp) / "lance", embedder)

        started = time.perf_counter()
        chunks = chunk_documents(scan_vault(vault).documents)
        report = index.sync(chunks)
        pipeline_s = time.perf_counter() - started
        assert report.embedded == len(chunks)

        texts = [chunk.embedding_text for chunk in chunks]
        model = embedder._model()  # the very model object the pipeline used
        started = time.perf_counter()
        model.encode(texts, batch_size=args.batch_size, normalize_embeddings=True)
        raw_s = time.perf_counter() - started

        started = time.perf_counter()
        again = index.sync(chunk_documents(scan_vault(vault).documents))
        noop_s = time.perf_counter() - started

    result = {
        "chunks": len(chunks),
        "pipeline_chunks_per_s": len(chunks) / pipeline_s,
        "raw_encode_chunks_per_s": len(chunks) / raw_s,
        "ratio": raw_s / pipeline_s,
    }
    print(f"vault copies            {copies} ({len(chunks)} chunks)")
    print(f"model load              {load_s:.1f} s")
    pipeline_rate, raw_rate = result["pipeline_chunks_per_s"], result["raw_encode_chunks_per_s"]
    print(f"pipeline (vault_index)  {pipeline_rate:.1f} chunks/s ({pipeline_s:.1f} s)")
    print(f"raw encode              {raw_rate:.1f} chunks/s ({raw_s:.1f} s)")
    print(f"ratio pipeline / raw    {result['ratio']:.2f}  (goal >= 0.80)")
    print(f"unchanged re-sync       {noop_s:.2f} s, {again.embedded} embedded")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
