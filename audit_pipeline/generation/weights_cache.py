"""A disk cache of dequantised model weights, so only the first process pays for the GGUF.

transformers has no CPU kernel for Q4_1 blocks: ``from_pretrained(..., gguf_file=...)``
dequantises all 272 tensors to float32 and converts the GGUF tokenizer, ~20 s on two cores.
The result saved as safetensors loads in well under a second (memory-mapped), so every later
process (each ``make audit``, each Dagster run worker, each test session) skips that work.

Entries are keyed by the GGUF file's sha256 and the transformers version: a new model file or
a transformers upgrade (which may convert differently) gets a fresh entry instead of stale
weights. An entry is written to a temporary directory and renamed into place, with a marker
file written last, so concurrent processes never read a half-written entry.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

CACHE_ENV = "AUDIT_PIPELINE_MODEL_CACHE"
DEFAULT_CACHE_DIR = Path("data/cache/models")
_MARKER = "audit-pipeline-entry.json"
_DISABLED = {"", "0", "off", "none", "false"}


def default_cache_dir(base_dir: Path | None = None) -> Path | None:
    """``$AUDIT_PIPELINE_MODEL_CACHE`` (``off`` disables the cache), else ``data/cache/models``
    under ``base_dir`` (the directory of audit.yaml, like every path the audit writes) or,
    without one, under the working directory."""
    value = os.environ.get(CACHE_ENV)
    if value is None:
        return ((base_dir or Path.cwd()) / DEFAULT_CACHE_DIR).resolve()
    return None if value.strip().lower() in _DISABLED else Path(value).expanduser().resolve()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def entry_dir(cache_dir: Path, model_name: str, source_sha256: str) -> Path:
    import transformers

    key = hashlib.sha256(f"{source_sha256}:{transformers.__version__}".encode()).hexdigest()
    return cache_dir / f"{model_name}-{key[:16]}"


def is_complete(entry: Path) -> bool:
    return (entry / _MARKER).is_file()


def save_entry(entry: Path, model: Any, tokenizer: Any, source: Path) -> bool:
    """Write the loaded model and tokenizer as a cache entry; False (logged) when it fails.

    The GGUF loader leaves a quantizer attached that refuses to serialise, although every
    weight is already a plain float32 tensor; it is detached here, which changes nothing the
    loaded model computes.
    """
    entry.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{entry.name}.", dir=entry.parent))
    try:
        model.hf_quantizer = None
        model.is_quantized = False
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        marker = {"source": str(source), "source_bytes": source.stat().st_size}
        (staging / _MARKER).write_text(json.dumps(marker), encoding="utf-8")
        if entry.exists() and not is_complete(entry):
            shutil.rmtree(entry)  # a damaged entry (renames are atomic, so never a live one)
        try:
            os.rename(staging, entry)
        except OSError:
            if not is_complete(entry):  # not a concurrent writer winning the race
                raise
        return True
    except Exception as exc:  # a cache that cannot be written must not fail generation
        logger.warning("could not cache dequantised weights in %s: %s", entry, exc)
        return False
    finally:
        shutil.rmtree(staging, ignore_errors=True)
