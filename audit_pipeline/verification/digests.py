"""Content digests of files and trees, for the verifier's identity: what a verdict depends on."""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Sequence
from functools import cache
from pathlib import Path

_PROJECT = "audit_pipeline"
# The packages the project's stages and their analyses are written in.
_STAGE_CODE = ("verification", "specifics", "text", "terminology")


@cache
def project_code_digest() -> str:
    """One digest of the code and word lists of the packages the project's stages run."""
    root = Path(__file__).resolve().parents[1]
    return hashlib.sha256(
        "".join(tree_digest(root / package, ("*.py", "*.txt")) for package in _STAGE_CODE).encode()
    ).hexdigest()[:16]


def source_digest(cls: type) -> str:
    """A digest of the file that defines ``cls`` (its module's source)."""
    try:
        path = inspect.getsourcefile(cls)
    except TypeError:
        path = None
    return file_digest(Path(path)) if path else "no-source"


@cache
def file_digest(path: Path) -> str:
    """sha256 of one file's bytes, short; computed once per process."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def tree_digest(root: Path, patterns: Sequence[str] = ("*.py", "*.txt", "*.json")) -> str:
    """One digest of every file under ``root`` matching ``patterns`` (names and contents)."""
    digest = hashlib.sha256()
    for pattern in patterns:
        for path in sorted(root.rglob(pattern)):
            if "__pycache__" in path.parts:
                continue
            digest.update(str(path.relative_to(root)).encode())
            digest.update(file_digest(path).encode())
    return digest.hexdigest()[:16]
