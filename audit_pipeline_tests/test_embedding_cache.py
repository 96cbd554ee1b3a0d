"""The on-disk embedding cache: a text is embedded once per model, across runs and processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from audit_pipeline.embedding import SentenceTransformerEmbedder
from audit_pipeline.embedding_cache import PersistentEmbeddingCache
from audit_pipeline_tests.helpers import CountingEmbedder

TEXTS = ["Backups expire after 35 days.", "TLS 1.2 or higher is required.", "Hello."]


def test_vectors_are_the_models_and_each_text_is_embedded_once(
    tmp_path: Path, counting_embedder: CountingEmbedder, embedder: SentenceTransformerEmbedder
) -> None:
    cache = PersistentEmbeddingCache(counting_embedder, tmp_path / "cache.sqlite")
    first = cache.embed([*TEXTS, TEXTS[0]])
    assert counting_embedder.texts == TEXTS  # the repeated text was embedded once
    np.testing.assert_allclose(first[:3], embedder.embed(TEXTS), atol=1e-5)
    np.testing.assert_array_equal(first[3], first[0])

    again = PersistentEmbeddingCache(counting_embedder, tmp_path / "cache.sqlite")
    np.testing.assert_array_equal(again.embed(TEXTS[::-1]), first[:3][::-1])
    assert counting_embedder.texts == TEXTS  # a new instance on the same file: no model call
    again.embed(["A new sentence."])
    assert counting_embedder.texts == [*TEXTS, "A new sentence."]


def test_another_model_never_reads_these_vectors(
    tmp_path: Path, counting_embedder: CountingEmbedder
) -> None:
    PersistentEmbeddingCache(counting_embedder, tmp_path / "cache.sqlite").embed(TEXTS)

    class Renamed(CountingEmbedder):
        @property
        def name(self) -> str:
            return "another-model"

    other = Renamed(counting_embedder.inner)
    PersistentEmbeddingCache(other, tmp_path / "cache.sqlite").embed(TEXTS)
    assert other.texts == TEXTS


def test_another_process_reads_what_this_one_wrote(
    tmp_path: Path, counting_embedder: CountingEmbedder
) -> None:
    path = tmp_path / "cache.sqlite"
    vectors = PersistentEmbeddingCache(counting_embedder, path).embed(TEXTS)
    script = (
        "import sys, numpy as np\n"
        "from audit_pipeline.embedding_cache import PersistentEmbeddingCache\n"
        "class Refusing:\n"
        "    name = 'all-MiniLM-L6-v2'\n"
        "    dimension = 384\n"
        "    def embed(self, texts):\n"
        "        raise SystemExit('the model was called')\n"
        f"v = PersistentEmbeddingCache(Refusing(), {str(path)!r}).embed({TEXTS!r})\n"
        "np.save(sys.argv[1], v)\n"
    )
    out = tmp_path / "v.npy"
    subprocess.run([sys.executable, "-c", script, str(out)], check=True)
    np.testing.assert_array_equal(np.load(out), vectors)
