"""Detection quality measured for a chain, kept under the chain's digest.

A figure is only worth quoting for the chain it was measured on: leave a check out, change a
threshold or refit the learned reading and the RAGTruth F1 no longer applies. The
no-regression snapshot of the shipped chain (``python -m benchmarks.verdict_snapshot --record``)
writes its figures into ``measured.json`` under the chain's ``digest`` (names, versions,
parameters and model files of its stages); the CLI, the report and ``audit-pipeline verifier``
quote them only when the configured chain has that digest, and say "figures not measured for
this chain" otherwise.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

MEASURED_PATH = Path(__file__).with_name("measured.json")


@cache
def _all(path: Path = MEASURED_PATH) -> dict[str, dict[str, Any]]:
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return dict(data.get("chains", {}))


def measured_figures(digest: str) -> dict[str, Any] | None:
    """The figures measured for the chain with ``digest`` (``summary`` is one line of them)."""
    return _all().get(digest)


def record_figures(digest: str, figures: dict[str, Any], path: Path = MEASURED_PATH) -> None:
    """Keep ``figures`` (with a ``summary`` line) for the chain with ``digest``."""
    if "summary" not in figures:
        raise ValueError("figures need a one-line 'summary'")
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"chains": {}}
    data.setdefault("chains", {})[digest] = figures
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    _all.cache_clear()
